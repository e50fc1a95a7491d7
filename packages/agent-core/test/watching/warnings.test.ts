/**
 * `runtime.warning` events through a real `PiTurnRunner`: what went wrong
 * and was recovered, in order with the rest of the turn's events, with a
 * stable code, a message for a person and the fields a UI needs. The same
 * things keep their `debug.trace`.
 */
import { type RuntimeEvent, type RuntimeWarningPayload, validateRuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { defineRuntimeTool, type BeforeLlmCallHook } from "../../src/index.js";
import {
  assistantMessage,
  createScriptedModel,
  createVirtualClock,
  hang,
  response,
  runCheckedTurn,
  runScriptedTurn,
  toolCall,
  userMessage,
} from "../../src/testing/index.js";
import { Type } from "@sinclair/typebox";

const warnings = (events: readonly RuntimeEvent[]): RuntimeWarningPayload[] =>
  events.flatMap((event) => (event.type === "runtime.warning" ? [event.payload] : []));

/** The event types around each warning, to check it comes in order with the rest. */
const typesAround = (events: readonly RuntimeEvent[]) =>
  events.map((event) => (event.type === "debug.trace" ? `trace:${event.payload.message}` : event.type));

describe("runtime.warning", () => {
  it("a rate-limited request that is retried: 'rate limited, retrying in 2.1 s', right after the retry trace and before the answer", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const model = createScriptedModel(
      [response([], { stopReason: "error", errorMessage: "429 Too Many Requests" }), "Hello."],
      { clock },
    );
    const turn = await runCheckedTurn({
      model,
      input: { llmRetry: { baseDelayMs: 2800 } },
      runnerOptions: { clock, random: () => 0.5 },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(warnings(turn.events)).toEqual([
      {
        code: "retry_wait",
        message: "rate limited, retrying in 2.1 s",
        family: "main",
        attempt: 1,
        delayMs: 2100,
        error: { code: "rate_limited", message: "429 Too Many Requests" },
      },
    ]);
    const types = typesAround(turn.events);
    const at = types.indexOf("runtime.warning");
    expect(types[at - 1]).toBe("trace:waiting");
    expect(types.indexOf("stream.resp")).toBeGreaterThan(at);
  });

  it("a request that timed out before its first event and was sent again: timeout_retried", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const model = createScriptedModel([hang(), "Hello."], { clock });
    const turn = await runCheckedTurn({
      model,
      input: { llm: { firstEventTimeoutMs: 5000 }, llmRetry: { baseDelayMs: 1000 } },
      runnerOptions: { clock, random: () => 0 },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(warnings(turn.events)).toEqual([
      expect.objectContaining({
        code: "timeout_retried",
        message: "the model did not answer in time, retrying in 0.5 s",
        attempt: 1,
        delayMs: 500,
      }),
    ]);
    expect(turn.outcome.timing?.requests[0]).toMatchObject({ attempts: 2, backoffMs: 500 });
  });

  it("a context overflow recovered by compaction: overflow_recovery", async () => {
    const compact: BeforeLlmCallHook = (event) =>
      event.reason === "overflow"
        ? { type: "replaceMessages", messages: [userMessage("Summary."), event.messages.at(-1)!] }
        : undefined;
    const turn = await runScriptedTurn({
      script: [
        assistantMessage("", {
          stopReason: "error",
          errorMessage: "prompt is too long: 213462 tokens > 200000 maximum",
        }),
        "Answer.",
      ],
      input: { history: [userMessage("old"), assistantMessage("old answer")], hooks: { beforeLlmCallHook: compact } },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(warnings(turn.events)).toEqual([
      {
        code: "overflow_recovery",
        message:
          "the conversation no longer fit the context window; it was shortened and the request is sent once more",
      },
    ]);
  });

  it("images left out of a request: images_dropped, once per new count", async () => {
    // A 1×1 PNG: below the smallest size a model is sent.
    const tiny = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    const look = defineRuntimeTool({
      name: "look",
      description: "Looks",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "seen" }] }),
    });
    const turn = await runScriptedTurn({
      script: [response([toolCall("look")]), "I cannot see it."],
      input: {
        userMessage: { text: "What is this?", images: [{ type: "image", data: tiny, mimeType: "image/png" }] },
        tools: [look],
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    // Both requests leave the image out; only the first is news.
    expect(warnings(turn.events)).toEqual([
      {
        code: "images_dropped",
        message: "1 image was left out of the request (too small, or past the per-request limit)",
        count: 1,
      },
    ]);
  });

  it("a hook that ignores the caller's abort past the grace period: hook_abandoned, and the turn ends aborted", async () => {
    const controller = new AbortController();
    const work = defineRuntimeTool({
      name: "work",
      description: "Works",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "done" }] }),
    });
    const turn = await runScriptedTurn({
      script: [response([toolCall("work")]), "never sent"],
      input: {
        tools: [work],
        signal: controller.signal,
        hooks: {
          beforeToolCallHook: () => {
            setTimeout(() => controller.abort(), 5);
            return new Promise(() => undefined); // a permission prompt nobody answers
          },
        },
      },
    });
    expect(turn.outcome.kind).toBe("aborted");
    expect(warnings(turn.events)).toEqual([
      {
        code: "hook_abandoned",
        message: "beforeToolCallHook did not return after the turn was aborted; the turn went on without it",
        hook: "beforeToolCallHook",
      },
    ]);
  });

  it("a tool's progress update after its result: late_tool_update, and the update is dropped", async () => {
    let lateUpdate: (() => void) | undefined;
    const chatty = defineRuntimeTool({
      name: "chatty",
      description: "Reports progress too late",
      parameters: Type.Object({}),
      execute: (_ctx, _input, _signal, onUpdate) => {
        lateUpdate = () => onUpdate({ content: [{ type: "text", text: "50%" }] });
        return { content: [{ type: "text", text: "done" }] };
      },
    });
    const afterStep: BeforeLlmCallHook = (event) => {
      if (event.requestIndex === 1) lateUpdate?.();
      return undefined;
    };
    const turn = await runScriptedTurn({
      script: [response([toolCall("chatty")]), "Finished."],
      input: { tools: [chatty], hooks: { beforeLlmCallHook: afterStep } },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(warnings(turn.events)).toEqual([
      {
        code: "late_tool_update",
        message: "chatty sent an update after its result; it was dropped",
        toolCallId: "call_1",
        toolName: "chatty",
      },
    ]);
    expect(turn.writer.traces().some((trace) => trace.message === "tool_execution_update")).toBe(false);
  });

  it("warnings found while the turn was prepared (RunTurnInput.warnings) come right after the first session.status, in order", async () => {
    const degraded: RuntimeWarningPayload = {
      code: "extension_degraded",
      message: 'MCP server "tracker" is not running; its tools fail this turn',
      extensionId: "tracker",
      tools: ["tracker_search"],
    };
    const turn = await runCheckedTurn({ script: ["Hello."], input: { warnings: [degraded] } });
    expect(turn.outcome.kind).toBe("completed");
    expect(warnings(turn.events)).toEqual([degraded]);
    expect(typesAround(turn.events).slice(0, 2)).toEqual(["session.status", "runtime.warning"]);
    await expect(
      runScriptedTurn({ script: ["Hello."], input: { warnings: [{ code: "x" } as never] } }),
    ).rejects.toMatchObject({
      code: "invalid_turn_input",
      message:
        'RunTurnInput.warnings[0] must be a runtime.warning payload { code, message, ... }: /code: expected one of retry_wait, timeout_retried, images_dropped, overflow_recovery, hook_abandoned, late_tool_update, extension_degraded, model_fallback, steering_dropped, got "x"',
    });
  });

  it("a host's warning missing a field its code needs is refused, naming the field; one holding a bigint is emitted as plain JSON", async () => {
    await expect(
      runScriptedTurn({
        script: ["Hello."],
        input: { warnings: [{ code: "extension_degraded", message: "down", extensionId: "tracker" } as never] },
      }),
    ).rejects.toMatchObject({
      code: "invalid_turn_input",
      message:
        "RunTurnInput.warnings[0] must be a runtime.warning payload { code, message, ... }: /tools: Expected required property",
    });
    const odd = { code: "extension_degraded", message: "down", extensionId: "tracker", tools: [], since: 10n };
    const turn = await runCheckedTurn({ script: ["Hello."], input: { warnings: [odd as never] } });
    const [warning] = turn.writer.ofType("runtime.warning");
    expect(validateRuntimeEvent(warning)).toMatchObject({ ok: true });
    expect(warning!.payload).toEqual({ ...odd, since: "10" });
  });
});
