import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The example's directory: the CLI runs from here, as `pnpm start` does. */
export const EXAMPLE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** How the tests start the CLI: node with tsx and the workspace's `source` condition. */
export const CLI_COMMAND = ["node", "--import", "tsx", "--conditions=source", path.join("src", "main.ts")] as const;

/** The environment without anything that looks like a provider credential. */
export function envWithoutProviderKeys(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|^AWS_|^GOOGLE_|^GCLOUD_|^AZURE_/i.test(name))
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** What a finished CLI process printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with piped stdin (`input`, then end of file) and no provider keys. */
export function runCli(args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const [command, ...prefix] = CLI_COMMAND;
    const child = spawn(command, [...prefix, ...args], {
      cwd: EXAMPLE_DIR,
      env: envWithoutProviderKeys(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI ${args.join(" ")} did not finish in time; stdout so far:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 45_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}
