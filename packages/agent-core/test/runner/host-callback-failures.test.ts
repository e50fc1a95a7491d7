/**
 * A host callback that throws ends the turn as the host's fault: code
 * `internal`, the callback named in the message, whatever its text says. A
 * host's "429 lock contention" is not a provider's rate limit, its "timed
 * out" is not a provider timeout, and nothing of it is retried.
 */
import { describe, expect, it } from "vitest";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { ErrorCode } from "@turnkit/protocol";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import type { RunTurnInput } from "../../src/pi-turn-runner/run-turn-input.js";
import type { PiTurnRunnerOptions } from "../../src/pi-turn-runner/runner-options.js";

/** Texts a provider failure could have; a host callback's failure must never be classified by them. */
const PROVIDER_LIKE = [
  "steering store unavailable",
  "lock wait timed out after 30s",
  "429 lock contention",
  "read ECONNRESET",
  "503 Service Unavailable",
];

const toolStep = () => [response([toolCall("work", { value: "1" })]), "done", "never"];

interface Case {
  callback: string;
  input: (message: string) => Partial<RunTurnInput>;
  runnerOptions?: (message: string) => PiTurnRunnerOptions;
}

const fail = (message: string) => () => {
  throw new Error(message);
};

const cases: Case[] = [
  { callback: "getSteeringMessages", input: (message) => ({ getSteeringMessages: fail(message) }) },
  { callback: "tryBeginClose", input: (message) => ({ getSteeringMessages: () => [], tryBeginClose: fail(message) }) },
  { callback: "shouldStopAfterTurn", input: (message) => ({ shouldStopAfterTurn: fail(message) }) },
  {
    callback: "shouldStopAfterSteering",
    input: (message) => {
      let polls = 0;
      return {
        getSteeringMessages: () => (polls++ === 0 ? [{ text: "also this" }] : []),
        shouldStopAfterSteering: fail(message),
      };
    },
  },
  {
    callback: "allocateMessageId",
    input: () => ({}),
    runnerOptions: (message) => ({
      allocateMessageId: async () => {
        throw new Error(message);
      },
    }),
  },
  { callback: "newEventId", input: () => ({}), runnerOptions: (message) => ({ newEventId: fail(message) }) },
];

describe("a throwing host callback ends the turn internal, naming the callback", () => {
  for (const { callback, input, runnerOptions } of cases) {
    it.each(PROVIDER_LIKE)(`${callback} throwing %j`, async (text) => {
      const turn = await runCheckedTurn({
        script: toolStep(),
        input: {
          tools: [createRecordingTool("work", { executionMode: "parallel" })],
          llmRetry: { baseDelayMs: 1, maxDelayMs: 1 },
          ...input(text),
        },
        runnerOptions: runnerOptions?.(text),
      });
      expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
      const message = turn.outcome.kind === "failed" ? turn.outcome.error.message : "";
      expect(message).toContain(callback);
      expect(message).toContain(text);
      // Never retried as a provider failure: at most the requests the script answers before the callback ran.
      expect(turn.requests.length).toBeLessThanOrEqual(2);
      expect(turn.writer.traces().some((trace) => trace.phase === "llm.retry")).toBe(false);
    });
  }

  it("a rejected (async) steering poll is the same as a throwing one", async () => {
    const turn = await runCheckedTurn({
      script: ["answer"],
      input: { getSteeringMessages: () => Promise.reject(new Error("429 Too Many Requests")) },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect((turn.outcome as { message: string }).message).toContain("getSteeringMessages");
  });

  it("a steering poll that answers something other than an array fails the turn, naming the callback", async () => {
    const turn = await runCheckedTurn({
      script: ["answer"],
      input: {
        getSteeringMessages: (() => ({ text: "not a list" })) as unknown as RunTurnInput["getSteeringMessages"],
      },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect((turn.outcome as { message: string }).message).toContain("getSteeringMessages");
  });

  it.each<[string, unknown]>([
    ["5", 5],
    ["undefined", undefined],
    ['"closed"', "closed"],
    ["object", { closed: true }],
  ])(
    "tryBeginClose answering %s fails the turn, naming it, instead of polling again and again",
    async (shown, answer) => {
      let closes = 0;
      const turn = await runCheckedTurn({
        script: ["answer"],
        input: {
          getSteeringMessages: () => [],
          tryBeginClose: (() => {
            closes += 1;
            return answer;
          }) as unknown as RunTurnInput["tryBeginClose"],
        },
      });
      expect(turn.outcome).toMatchObject({
        kind: "failed",
        error: {
          code: ErrorCode.Internal,
          message: `The host callback tryBeginClose returned ${shown}, not a boolean`,
        },
      });
      expect(closes).toBe(1);
    },
  );

  for (const [callback, answer, runnerOptions] of [
    ["allocateMessageId", "5", { allocateMessageId: () => 5 }],
    ["allocateMessageId", '""', { allocateMessageId: async () => "" }],
    ["newEventId", "undefined", { newEventId: () => undefined }],
  ] as const) {
    it(`${callback} answering ${answer} fails the turn the same way; every event still has an id and a seq`, async () => {
      const turn = await runCheckedTurn({ script: ["answer"], runnerOptions: runnerOptions as PiTurnRunnerOptions });
      expect(turn.outcome).toMatchObject({
        kind: "failed",
        error: {
          code: ErrorCode.Internal,
          message: `The host callback ${callback} returned ${answer}, not a non-empty string`,
        },
      });
      expect(turn.events.every((event) => typeof event.eventId === "string" && event.eventId !== "")).toBe(true);
      expect(turn.events.map((event) => event.seq)).toEqual(turn.events.map((_, index) => index + 1));
      expect(turn.writer.statuses().at(-1)).toBe("failed");
    });
  }
  for (const [shape, allocateMessageId] of [
    ["at once", () => "msg-same"],
    ["through a promise", async () => "msg-same"],
  ] as const) {
    it(`allocateMessageId naming two messages of a turn alike (${shape}) fails the turn naming it; no second message streams under the first one's id`, async () => {
      const turn = await runCheckedTurn({
        script: toolStep(),
        input: { tools: [createRecordingTool("work", { executionMode: "parallel" })] },
        runnerOptions: { allocateMessageId } as PiTurnRunnerOptions,
      });
      expect(turn.outcome).toMatchObject({
        kind: "failed",
        error: {
          code: ErrorCode.Internal,
          message: 'The host callback allocateMessageId returned "msg-same", the id of an earlier message of this turn',
        },
      });
      // Each message id's chunks are numbered 0, 1, 2, ... once.
      const indexes = turn.events.flatMap((event) => (event.type === "stream.resp" ? [event.payload.chunkIndex] : []));
      expect(indexes).toEqual(indexes.map((_, index) => index));
      expect(turn.writer.statuses().at(-1)).toBe("failed");
    });
  }
  for (const [shape, newEventId] of [
    ["always the same id", () => () => "evt-same"],
    [
      "a counter that starts again at its fourth call",
      () => {
        let calls = 0;
        return () => `evt-${++calls > 3 ? calls - 3 : calls}`;
      },
    ],
  ] as const) {
    it(`newEventId answering an id it gave an earlier event of the turn (${shape}) fails the turn naming it; no two events share an id`, async () => {
      const turn = await runCheckedTurn({
        script: toolStep(),
        input: { tools: [createRecordingTool("work", { executionMode: "parallel" })] },
        runnerOptions: { newEventId: newEventId() },
      });
      expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
      const message = turn.outcome.kind === "failed" ? turn.outcome.error.message : "";
      expect(message).toMatch(
        /^The host callback newEventId returned "evt-(same|1)", the id of an earlier event of this turn$/,
      );
      const ids = turn.events.map((event) => event.eventId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(turn.events.map((event) => event.seq)).toEqual(turn.events.map((_, index) => index + 1));
      expect(turn.writer.statuses().at(-1)).toBe("failed");
    });
  }
});
