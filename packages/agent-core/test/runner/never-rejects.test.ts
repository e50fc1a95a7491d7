/**
 * `runTurn` never rejects and always ends with a terminal
 * `session.status` and an outcome, whatever the writer, hooks or provider
 * do. After every ending, each tool call in the host's transcript has a
 * result. `runCheckedTurn` asserts both for every turn here.
 */
import { describe, expect, it } from "vitest";
import { type ScriptEntry, hang, reject, response, text, throwSync, toolCall } from "@turnkit/agent-loop/testing";
import { ErrorCode, type RuntimeEvent } from "@turnkit/protocol";
import type { RunTurnInput } from "../../src/pi-turn-runner/run-turn-input.js";
import type { PiTurnHooks } from "../../src/pi-turn-runner/turn-hooks.js";
import {
  abortListenerCount,
  assertRuntimeEventSequence,
  createRecordingEventWriter,
  createRecordingTool,
  deferred,
  runCheckedTurn,
} from "@turnkit/agent-core/testing";
import { terminalStatus } from "../support/turn-queries.js";

const toolScript = () => [
  response([text("working"), toolCall("work", { value: "1" }), toolCall("work", { value: "2" })]),
  "done",
];

/*
 * The caller's aborts below happen when the turn reached the state under test
 * (a request arrived, a hook was called), never after a fixed real-time delay:
 * on a loaded machine such a delay can fire before the turn gets there.
 */

/** A script entry that, when its request arrives, lets it play `entry` and aborts right after (a macrotask later). */
function abortWhenRequested(controller: AbortController, entry: ScriptEntry): ScriptEntry {
  return () => {
    setTimeout(() => controller.abort(), 0);
    return entry;
  };
}

/** `hook`, made to abort the turn the first time it is called (a macrotask later), so the abort finds it pending. */
function abortingWhenCalled<Args extends unknown[], R>(
  controller: AbortController,
  hook: (...args: Args) => R,
): (...args: Args) => R {
  return (...args) => {
    setTimeout(() => controller.abort(), 0);
    return hook(...args);
  };
}

describe("a failing event writer", () => {
  it("that throws on every push: the turn fails (internal), the terminal status is still offered, no request is made", async () => {
    const writer = createRecordingEventWriter({
      onEvent: () => {
        throw new Error("socket closed");
      },
    });
    const turn = await runCheckedTurn({ writer, script: ["never"] });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect((turn.outcome as { message: string }).message).toContain("socket closed");
    expect(terminalStatus(turn.events)).toMatchObject({ status: "failed" });
    expect(turn.requests).toHaveLength(0);
  });

  it("that throws once, mid-stream: the turn stops, fails, and every tool call of the transcript has a result", async () => {
    const work = createRecordingTool("work", { executionMode: "parallel" });
    let thrown = false;
    const writer = createRecordingEventWriter({
      onEvent: (event) => {
        if (
          !thrown &&
          event.type === "stream.resp" &&
          event.payload.chunk.kind === "tool_call" &&
          event.payload.chunk.status === "started"
        ) {
          thrown = true;
          throw new Error("disk full");
        }
      },
    });
    const turn = await runCheckedTurn({ writer, script: toolScript(), input: { tools: [work] } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect(turn.requests).toHaveLength(1);
    expect(turn.transcript.filter((message) => message.role === "toolResult")).toHaveLength(2);
  });

  it("that rejects asynchronously: same, with an async writer", async () => {
    const work = createRecordingTool("work", { executionMode: "parallel" });
    let count = 0;
    const writer = createRecordingEventWriter({
      asyncTicks: 2,
      onEvent: async () => {
        if (++count === 6) throw new Error("stream reset by peer");
      },
    });
    const turn = await runCheckedTurn({ writer, script: toolScript(), input: { tools: [work] } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect(terminalStatus(turn.events).status).toBe("failed");
  });

  it("that answers a thenable whose then throws, or calls back twice: a failure of the writer, never a rejected runTurn", async () => {
    const throwing = createRecordingEventWriter({
      onEvent: (event) =>
        event.type === "session.status"
          ? undefined
          : ({
              then() {
                throw new Error("then threw");
              },
            } as unknown as Promise<void>),
    });
    const failed = await runCheckedTurn({ writer: throwing, script: ["never read"] });
    expect(failed.outcome).toMatchObject({
      kind: "failed",
      error: { code: ErrorCode.Internal, message: "The event writer failed: then threw" },
    });
    const twice = createRecordingEventWriter({
      onEvent: () =>
        ({
          then(resolve: () => void, reject: (error: unknown) => void) {
            resolve();
            reject(new Error("late"));
          },
        }) as unknown as Promise<void>,
    });
    const completed = await runCheckedTurn({ writer: twice, script: ["fine"] });
    expect(completed.outcome.kind).toBe("completed");
    expect(completed.writer.text()).toBe("fine");
  });

  it("that never returns: bounded by the caller's abort; the terminal status is still handed over", async () => {
    const controller = new AbortController();
    const stuck = deferred();
    const writer = createRecordingEventWriter({
      onEvent: (event) => {
        if (event.type !== "debug.trace") return;
        setTimeout(() => controller.abort(), 0);
        return stuck.promise; // the host's sink hangs from here on
      },
    });
    const turn = await runCheckedTurn({
      writer,
      script: toolScript(),
      input: { tools: [createRecordingTool("work", { executionMode: "parallel" })], signal: controller.signal },
    });
    expect(["aborted", "completed"]).toContain(turn.outcome.kind);
    expect(terminalStatus(turn.events).status).toBe(turn.outcome.kind);
    expect(abortListenerCount(controller.signal)).toBe(0);
  });
});

describe("failing hooks", () => {
  it("every hook kind throwing at once: the turn ends with a terminal status and an outcome", async () => {
    const boom = () => {
      throw new Error("boom");
    };
    const hooks: PiTurnHooks = {
      onLlmCallPreparedHook: boom,
      beforeToolCallHook: boom,
      onToolExecutionStartHook: boom,
      afterToolCallHook: boom,
      onStepEndHook: boom,
    };
    const turn = await runCheckedTurn({
      script: toolScript(),
      input: { tools: [createRecordingTool("work", { executionMode: "parallel" })], hooks },
    });
    // Observers are ignored, tool hooks block or turn into error results, step-end errors are reported.
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.transcript.filter((message) => message.role === "toolResult").every((message) => message.isError)).toBe(
      true,
    );

    for (const failing of [
      { beforeLlmCallHook: boom },
      { afterLlmCallHook: boom },
      { onHistoryChangedHook: boom },
    ] as PiTurnHooks[]) {
      const failed = await runCheckedTurn({
        script: toolScript(),
        input: { tools: [createRecordingTool("work", { executionMode: "parallel" })], hooks: failing },
      });
      expect(failed.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    }
  });

  const never = () => new Promise<never>(() => {});
  const hanging: [string, PiTurnHooks][] = [
    ["beforeLlmCallHook", { beforeLlmCallHook: never }],
    ["afterLlmCallHook", { afterLlmCallHook: never }],
    ["beforeToolCallHook", { beforeToolCallHook: never }],
    ["onToolExecutionStartHook", { onToolExecutionStartHook: never }],
    ["afterToolCallHook", { afterToolCallHook: never }],
    ["onStepEndHook", { onStepEndHook: never }],
    ["onHistoryChangedHook", { onHistoryChangedHook: never }],
  ];
  for (const [name, hooks] of hanging) {
    it(`a ${name} that never returns is bounded by the caller's abort`, async () => {
      const controller = new AbortController();
      const aborting = Object.fromEntries(
        Object.entries(hooks).map(([kind, hook]) => [
          kind,
          abortingWhenCalled(controller, hook as () => Promise<never>),
        ]),
      );
      const turn = await runCheckedTurn({
        script: toolScript(),
        input: {
          tools: [createRecordingTool("work", { executionMode: "parallel" })],
          hooks: aborting,
          signal: controller.signal,
        },
      });
      expect(turn.outcome.kind).toBe("aborted");
      expect(abortListenerCount(controller.signal)).toBe(0);
    }, 20_000);
  }

  const hangingCallbacks: [string, Partial<RunTurnInput>][] = [
    ["getSteeringMessages", { getSteeringMessages: never }],
    ["tryBeginClose", { getSteeringMessages: () => [], tryBeginClose: never }],
    ["shouldStopAfterTurn", { shouldStopAfterTurn: never }],
  ];
  for (const [name, callbacks] of hangingCallbacks) {
    it(`a host ${name} that never returns is bounded by the caller's abort`, async () => {
      const controller = new AbortController();
      const aborting = {
        ...callbacks,
        [name]: abortingWhenCalled(controller, callbacks[name as keyof typeof callbacks] as () => Promise<never>),
      };
      const turn = await runCheckedTurn({
        script: toolScript(),
        input: {
          tools: [createRecordingTool("work", { executionMode: "parallel" })],
          ...aborting,
          signal: controller.signal,
        },
      });
      expect(turn.outcome.kind).toBe("aborted");
    }, 20_000);
  }

  it("a hook that returns late, after the turn ended, adds no event after the terminal status", async () => {
    const controller = new AbortController();
    const writer = createRecordingEventWriter();
    const release = deferred();
    const answered = deferred();
    const turn = await runCheckedTurn({
      writer,
      script: ["answer"],
      input: {
        signal: controller.signal,
        hooks: {
          onStepEndHook: abortingWhenCalled(controller, async () => {
            await release.promise;
            answered.resolve();
            throw new Error("too late");
          }),
        },
      },
    });
    expect(turn.outcome.kind).toBe("aborted");
    const count = writer.events.length;
    // The hook answers only now, after the turn settled; whatever it could still cause has a few turns of the event loop to show.
    release.resolve();
    await answered.promise;
    for (let round = 0; round < 5; round++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(writer.events).toHaveLength(count);
    assertRuntimeEventSequence(writer.events);
  });

  it("a throwing message-id allocator, steering poll or close attempt fails the turn instead of rejecting", async () => {
    const allocator = await runCheckedTurn({
      script: ["hi"],
      runnerOptions: {
        allocateMessageId: () => {
          throw new Error("id service down");
        },
      },
    });
    expect(allocator.outcome.kind).toBe("failed");

    const poll = await runCheckedTurn({
      script: ["hi"],
      input: {
        getSteeringMessages: () => {
          throw new Error("inbox down");
        },
      },
    });
    expect(poll.outcome.kind).toBe("failed");

    const close = await runCheckedTurn({
      script: ["hi"],
      input: {
        getSteeringMessages: () => [],
        tryBeginClose: async () => {
          throw new Error("lock lost");
        },
      },
    });
    expect(close.outcome.kind).toBe("failed");
  });
});

describe("a failing provider", () => {
  it("a stream function that throws synchronously or rejects: failed with a classified code", async () => {
    const thrown = await runCheckedTurn({
      script: [throwSync(Object.assign(new Error("401 invalid api key"), { status: 401 }))],
    });
    expect(thrown.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Auth } });
    const rejected = await runCheckedTurn({ script: [reject(new Error("503 upstream overloaded"))] });
    expect(rejected.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Upstream } });
  });

  it("an error after tool calls streamed: the calls are not executed and the transcript stays replayable", async () => {
    const work = createRecordingTool("work", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("work")], { stopReason: "error", errorMessage: "connection reset" })],
      input: { tools: [work] },
    });
    expect(turn.outcome.kind).toBe("failed");
    expect(work.calls).toHaveLength(0);
  });

  it("a stream that hangs before its first event, with the caller's abort: aborted", async () => {
    const controller = new AbortController();
    const turn = await runCheckedTurn({
      script: [abortWhenRequested(controller, hang())],
      input: { signal: controller.signal },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    // The terminal status reports what the turn cost: one attempt, aborted before it reported usage.
    expect(terminalStatus(turn.events)).toEqual({
      status: "aborted",
      usage: turn.outcome.usage,
      timing: turn.outcome.timing,
    });
    expect(turn.outcome.usage?.attempts).toEqual({ main: 1, auxiliary: 0 });
    expect(turn.outcome.usage?.total.totalTokens).toBe(0);
  });

  it("a stream that hangs mid-tool-step, with the caller's abort: aborted, and the second step's calls have results", async () => {
    const controller = new AbortController();
    const work = createRecordingTool("work", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [
        response([toolCall("work")]),
        abortWhenRequested(
          controller,
          hang({ afterEvents: 2, response: response([text("thinking about it"), toolCall("work")]) }),
        ),
      ],
      input: { tools: [work], signal: controller.signal },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(turn.requests).toHaveLength(2);
    const last = turn.transcript.at(-1) as RuntimeEvent | { role: string; stopReason?: string };
    expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });
});
