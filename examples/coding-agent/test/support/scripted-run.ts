import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RuntimeEvent } from "@turnkit/protocol";
import type { CliOptions } from "../../src/cli-options.js";
import { runCodingAgent, type CodingAgentRunOptions, type CodingAgentRunResult } from "../../src/coding-agent-app.js";

/** What a scripted run printed and did. */
export interface ScriptedRun {
  output: string;
  events: RuntimeEvent[];
  result: CodingAgentRunResult;
}

/** A temp directory per test file, removed by `cleanUp`. */
export async function createTempRoot(): Promise<{ dir: string; cleanUp: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "coding-agent-test-"));
  return { dir, cleanUp: () => rm(dir, { recursive: true, force: true }) };
}

type ScriptedRunOptions = { cli?: Partial<CliOptions> } & Partial<Omit<CodingAgentRunOptions, "cli" | "out">>;

/**
 * Runs the coding agent in-process as `pnpm start` does without a terminal:
 * no colours, no live region, the scripted user answering. No event delay;
 * the scripted 429 asks for a short wait unless the test says otherwise.
 */
export async function runScripted(root: string, options: ScriptedRunOptions = {}): Promise<ScriptedRun> {
  return startScripted(root, options).done;
}

/** {@link runScripted}, with the output readable while it runs. */
export function startScripted(
  root: string,
  options: ScriptedRunOptions = {},
): { output(): string; done: Promise<ScriptedRun> } {
  let output = "";
  const events: RuntimeEvent[] = [];
  const { cli, ...rest } = options;
  const done = runCodingAgent({
    cli: { yes: false, help: false, ...cli },
    // Wide enough that no line wraps when a test renders as a terminal (`tty: true`).
    out: { write: (text: string) => (output += text), columns: 1000 },
    tty: false,
    color: false,
    workspaceParent: root,
    sessionDir: path.join(root, "sessions"),
    ...rest,
    scripted: { eventDelayMs: 0, retryAfterMs: 50, ...rest.scripted },
    onEvent: (event) => {
      events.push(event);
      rest.onEvent?.(event);
    },
  }).then((result) => ({ output, events, result }));
  return { output: () => output, done };
}

/** Replaces what changes from run to run (temp paths, timings) with placeholders. */
export function normaliseOutput(
  output: string,
  result: Pick<CodingAgentRunResult, "workspaceDir" | "sessionFile">,
): string {
  return (
    output
      .replaceAll(result.sessionFile, "<session-file>")
      .replaceAll(result.workspaceDir, "<workspace>")
      .replace(/ · \d+ ms/g, " · <time>")
      .replace(/ · \d+\.\d s/g, " · <time>")
      // The estimate counts the real `node --test` output, whose durations vary in length.
      .replace(/\(≈[\d,]+ → [\d,]+ tokens\)/g, "(≈<n> → <n> tokens)")
  );
}

/** The index of the first `stream.resp` tool-call chunk of `toolName` with `status`, or -1. */
export function toolCallEventIndex(events: readonly RuntimeEvent[], toolName: string, status: string): number {
  return events.findIndex(
    (event) =>
      event.type === "stream.resp" &&
      event.payload.chunk.kind === "tool_call" &&
      event.payload.chunk.toolName === toolName &&
      event.payload.chunk.status === status,
  );
}
