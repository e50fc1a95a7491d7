/**
 * A logger is an observer: whatever it does (throw on every call, on one
 * level only), the turn does exactly what it does with a quiet logger. And
 * the runner has something to say at every level: failures to `error`,
 * retry waits, timeouts, abandoned hooks and overflow recovery to `warn`,
 * the rest of its traces to `debug`.
 */
import { describe, expect, it } from "vitest";
import { errorAfter, hang, response, text, toolCall } from "@turnkit/agent-loop/testing";
import { ErrorCode } from "@turnkit/protocol";
import { createRecordingEventWriter, createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import type { TurnLogger } from "../../src/pi-turn-runner/runner-options.js";
import { messageText } from "../support/turn-queries.js";

const throwingLogger: TurnLogger = {
  debug: () => {
    throw new Error("log sink down (debug)");
  },
  warn: () => {
    throw new Error("log sink down (warn)");
  },
  error: () => {
    throw new Error("log sink down (error)");
  },
};

function recordingLogger() {
  const lines: { level: "debug" | "warn" | "error"; message: string }[] = [];
  const logger: Required<TurnLogger> = {
    debug: (message) => void lines.push({ level: "debug", message }),
    warn: (message) => void lines.push({ level: "warn", message }),
    error: (message) => void lines.push({ level: "error", message }),
  };
  return { lines, logger };
}

/** A turn whose writer throws at its second event, with the given logger. */
async function writerFailsAtSecondEvent(logger: TurnLogger | undefined) {
  const work = createRecordingTool("work", { executionMode: "parallel" });
  let pushed = 0;
  const writer = createRecordingEventWriter({
    onEvent: () => {
      if (++pushed === 2) throw new Error("socket closed");
    },
  });
  const turn = await runCheckedTurn({
    writer,
    script: [
      response([toolCall("work", { value: "1" }), toolCall("work", { value: "2" })]),
      response([toolCall("work", { value: "3" })]),
      "done",
    ],
    input: { tools: [work] },
    runnerOptions: { logger },
  });
  return { turn, toolRuns: work.calls.length };
}

describe("logger failures never change what the runner does", () => {
  it("a throwing logger.error does not keep a failed event writer from stopping the agent", async () => {
    const quiet = await writerFailsAtSecondEvent(undefined);
    const throwing = await writerFailsAtSecondEvent(throwingLogger);

    expect(quiet.turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect(throwing.turn.outcome).toEqual(quiet.turn.outcome);
    expect(throwing.turn.requests).toHaveLength(quiet.turn.requests.length);
    expect(throwing.toolRuns).toBe(quiet.toolRuns);
    expect(throwing.turn.events.map((event) => event.type)).toEqual(quiet.turn.events.map((event) => event.type));
  });

  it("a logger throwing at every level: a turn with tools, a hook failure and a trace per step ends as with no logger", async () => {
    const run = (logger: TurnLogger | undefined) =>
      runCheckedTurn({
        script: [response([text("looking"), toolCall("work", { value: "1" })]), "done"],
        input: {
          tools: [createRecordingTool("work")],
          hooks: {
            afterLlmCallHook: ({ requestIndex }) =>
              requestIndex === 1 ? { type: "fail", reason: "policy" } : undefined,
          },
        },
        runnerOptions: { logger },
      });
    const quiet = await run(undefined);
    const throwing = await run(throwingLogger);
    expect(quiet.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect(throwing.outcome).toEqual(quiet.outcome);
    const shape = (turn: typeof quiet) => turn.delivered.map((message) => [message.role, messageText(message)]);
    expect(shape(throwing)).toEqual(shape(quiet));
    expect(throwing.events.map((event) => event.type)).toEqual(quiet.events.map((event) => event.type));
  });
});

describe("the runner talks to its logger at every level", () => {
  it("warn for a retry wait, debug for the recovery, error for the failure that ends the turn", async () => {
    const { lines, logger } = recordingLogger();
    const turn = await runCheckedTurn({
      script: [errorAfter(0, "503 upstream overloaded"), "answered"],
      input: {
        llmRetry: { baseDelayMs: 1, maxDelayMs: 1 },
        hooks: { afterLlmCallHook: () => ({ type: "fail", reason: "policy says no" }) },
      },
      runnerOptions: { logger },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect(
      lines.some((line) => line.level === "warn" && /503/.test(line.message) && /retrying/.test(line.message)),
    ).toBe(true);
    expect(lines.some((line) => line.level === "debug" && /recovered/.test(line.message))).toBe(true);
    expect(lines.filter((line) => line.level === "error").map((line) => line.message)).toEqual([
      "afterLlmCallHook failed the turn: policy says no",
    ]);
  });

  it("error for a provider failure that ends the turn, with its code", async () => {
    const { lines, logger } = recordingLogger();
    const turn = await runCheckedTurn({ script: [errorAfter(0, "401 invalid api key")], runnerOptions: { logger } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Auth } });
    expect(lines.filter((line) => line.level === "error").map((line) => line.message)).toEqual(["401 invalid api key"]);
  });

  it("warn for a hook abandoned after the abort", async () => {
    const { lines, logger } = recordingLogger();
    const controller = new AbortController();
    const turn = await runCheckedTurn({
      script: ["never sent"],
      input: {
        signal: controller.signal,
        hooks: {
          beforeLlmCallHook: () => {
            controller.abort();
            return new Promise(() => undefined);
          },
        },
      },
      runnerOptions: { logger },
    });
    expect(turn.outcome.kind).toBe("aborted");
    expect(lines.some((line) => line.level === "warn" && line.message.includes("beforeLlmCallHook"))).toBe(true);
  });

  it("warn for a first-event timeout", async () => {
    const { lines, logger } = recordingLogger();
    const turn = await runCheckedTurn({
      script: [hang(), "answered"],
      input: { llm: { firstEventTimeoutMs: 20 }, llmRetry: { baseDelayMs: 1, maxDelayMs: 1 } },
      runnerOptions: { logger },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(lines.some((line) => line.level === "warn" && /timeout|timed out/i.test(line.message))).toBe(true);
  });
});
