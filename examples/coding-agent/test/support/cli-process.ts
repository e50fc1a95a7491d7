import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleForTests } from "../../../../scripts/testing/bundle-for-tests.js";

/** The example's directory: the CLI runs from here, as `pnpm start` does. */
export const EXAMPLE_DIR = fileURLToPath(new URL("../..", import.meta.url));

const BUNDLE_ENV = "TURNKIT_EXAMPLE_CLI_BUNDLE";
const MAIN_SCRIPT = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/**
 * How the tests start the CLI: plain node running the bundle the global
 * setup made of `src/main.ts`, or (without it, e.g. one file run by hand
 * outside the project) node with tsx and the workspace's `source`
 * condition, as `pnpm start` does.
 */
export function cliCommand(): string[] {
  const bundle = process.env[BUNDLE_ENV];
  return bundle ? ["node", bundle] : ["node", "--import", "tsx", "--conditions=source", path.join("src", "main.ts")];
}

/** Vitest global setup: bundles the CLI once per run (each process then starts in a third of the time) and removes it after. */
export default async function setup(): Promise<() => void> {
  const scratch = mkdtempSync(path.join(tmpdir(), "turnkit-example-cli-"));
  process.env[BUNDLE_ENV] = await bundleForTests(MAIN_SCRIPT, scratch);
  return () => {
    delete process.env[BUNDLE_ENV];
    rmSync(scratch, { recursive: true, force: true });
  };
}

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
    const [command, ...prefix] = cliCommand();
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
