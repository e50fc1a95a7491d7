/**
 * The coding-agent command: `pnpm start` (see the README). Without --model
 * it plays the scripted demo; in a terminal it is interactive. Problems the
 * user can fix (a bad flag, an unknown model, a missing key) end as one line
 * on stderr and a non-zero exit code.
 */
import { text } from "node:stream/consumers";
import { shouldUseColor } from "./ansi-style.js";
import { USAGE, parseCliOptions } from "./cli-options.js";
import { HostError } from "./host-error.js";

async function main(argv: readonly string[]): Promise<number> {
  const cli = parseCliOptions(argv);
  if (cli.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (!interactive && cli.model && !cli.task && process.stdin.isTTY !== true) {
    const piped = (await text(process.stdin)).trim();
    if (piped !== "") cli.task = piped;
  }

  // Without a terminal, Ctrl+C arrives as SIGINT: the first aborts the turn, the second exits.
  const controller = new AbortController();
  if (!interactive) {
    process.on("SIGINT", () => {
      if (controller.signal.aborted) process.exit(130);
      controller.abort();
    });
  }

  // Loaded step by step so that errors come early: `--help` and bad flags need
  // no model code, a bad model or a missing key needs only pi-ai's registry.
  const { resolveModelChoice } = await import("./model-choice.js");
  const model = cli.model ? resolveModelChoice(cli.model) : undefined;
  const { runCodingAgent } = await import("./coding-agent-app.js");
  const stdoutIsTty = process.stdout.isTTY === true;
  const result = await runCodingAgent({
    cli,
    out: process.stdout,
    tty: stdoutIsTty,
    color: shouldUseColor(stdoutIsTty),
    signal: controller.signal,
    ...(model && { model }),
    ...(interactive && { keys: process.stdin }),
  });
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (HostError.isInstance(error)) {
      process.stderr.write(`coding-agent: ${error.message}\n`);
      process.exitCode = error.code === "usage" ? 2 : 1;
      return;
    }
    process.stderr.write(
      `coding-agent: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
