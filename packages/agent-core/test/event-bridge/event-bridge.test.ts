import { describe, expect, it } from "vitest";
import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { AgentEvent } from "@turnkit/agent-loop";
import { assistantMessage, deferred, text, toolCall } from "@turnkit/agent-loop/testing";
import { ErrorCode, type RuntimeEventPayloadMap, type RuntimeEventType, type StreamChunk } from "@turnkit/protocol";
import { EventBridge } from "../../src/event-bridge/event-bridge.js";

type Emitted = { type: RuntimeEventType; payload: RuntimeEventPayloadMap[RuntimeEventType] };

function bridgeUnderTest(allocate: () => string | Promise<string> = () => "m1") {
  const out: Emitted[] = [];
  let now = 1000;
  const bridge = new EventBridge(
    (type, payload) => void out.push({ type, payload }),
    allocate,
    () => now,
  );
  const chunks = () =>
    out
      .filter((event) => event.type === "stream.resp")
      .map((event) => event.payload as RuntimeEventPayloadMap["stream.resp"]);
  return { bridge, out, chunks, advance: (ms: number) => (now += ms) };
}

const textDelta = (partial: AssistantMessage, delta: string): AgentEvent => ({
  type: "message_update",
  message: partial,
  assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial } as AssistantMessageEvent,
});

describe("EventBridge", () => {
  it("emits no delta before the host's id arrives; deltas that came meanwhile follow it, in order", async () => {
    const id = deferred<string>();
    const { bridge, out, chunks } = bridgeUnderTest(() => id.promise);
    const partial = assistantMessage("");
    const started = bridge.handle({ type: "message_start", message: partial });
    const first = bridge.handle(textDelta(partial, "Hel"));
    const second = bridge.handle(textDelta(partial, "lo"));
    await Promise.resolve();
    expect(out).toHaveLength(0);

    id.resolve("host-7");
    await Promise.all([started, first, second]);
    expect(chunks()).toEqual([
      { messageId: "host-7", chunkIndex: 0, chunk: { kind: "text", delta: "Hel" } },
      { messageId: "host-7", chunkIndex: 1, chunk: { kind: "text", delta: "lo" } },
    ]);
    // Once the id is known, deltas go out synchronously again.
    expect(bridge.handle(textDelta(partial, "!"))).toBeUndefined();
    expect(chunks().at(-1)).toMatchObject({ chunkIndex: 2, chunk: { delta: "!" } });
  });

  it("holds a completed tool-call message until its last tool_execution_end, then releases calls in call order with status, result and duration", async () => {
    const { bridge, chunks, advance } = bridgeUnderTest();
    const message = assistantMessage([
      text("running two"),
      toolCall("a", { x: 1 }, { id: "c1" }),
      toolCall("b", {}, { id: "c2" }),
    ]);
    await bridge.handle({ type: "message_start", message });
    bridge.handle({ type: "message_end", message });
    expect(chunks().some((event) => event.chunk.kind === "finish")).toBe(false);
    expect(bridge.assistantMessageIdFor("c2")).toBe("m1");

    bridge.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "a", args: { x: 1 } });
    bridge.handle({ type: "tool_execution_start", toolCallId: "c2", toolName: "b", args: {} });
    // Preparation (validation, permission hooks) is not "started" yet: only admission is.
    expect(chunks().filter((event) => event.chunk.kind === "tool_call")).toEqual([]);
    advance(5);
    bridge.toolAdmitted("c1");
    bridge.toolAdmitted("c2");
    advance(30);
    bridge.handle({
      type: "tool_execution_end",
      toolCallId: "c2",
      toolName: "b",
      result: { content: [{ type: "text", text: "no" }], details: undefined },
      isError: true,
    });
    const beforeLast = chunks().length;
    expect(
      chunks()
        .filter((event) => event.chunk.kind === "tool_call")
        .map((event) => (event.chunk as { status: string }).status),
    ).toEqual(["started", "started"]);
    advance(20);
    bridge.handle({
      type: "tool_execution_end",
      toolCallId: "c1",
      toolName: "a",
      result: { content: [{ type: "text", text: "yes" }], details: { n: 1 } },
      isError: false,
    });

    const released = chunks()
      .slice(beforeLast)
      .map((event) => event.chunk);
    expect(released).toEqual([
      {
        kind: "tool_call",
        toolCallId: "c1",
        toolName: "a",
        status: "finished",
        arguments: { x: 1 },
        result: { content: [{ type: "text", text: "yes" }], isError: false, details: { n: 1 } },
        durationMs: 50,
      },
      {
        kind: "tool_call",
        toolCallId: "c2",
        toolName: "b",
        status: "failed",
        arguments: {},
        result: { content: [{ type: "text", text: "no" }], isError: true, details: undefined },
        durationMs: 30,
      },
      { kind: "finish", reason: "toolUse", usage: message.usage },
    ]);
    expect(chunks().map((event) => event.chunkIndex)).toEqual(chunks().map((_, index) => index));
    // Released calls keep their message id for the rest of the turn.
    expect(bridge.assistantMessageIdFor("c1")).toBe("m1");
    expect(bridge.assistantMessageIdFor("c2")).toBe("m1");
    expect(bridge.assistantMessageIdFor("unknown")).toBeUndefined();
  });

  it("a response whose text came without deltas (a stream function of one done event, or text_end only) shows its thinking and text before its finish; a streamed one shows nothing twice", async () => {
    const { bridge, chunks } = bridgeUnderTest();
    const whole = assistantMessage([
      { type: "thinking", thinking: "pondering" },
      text("Hello"),
      { type: "thinking", thinking: "" },
      text(""),
    ]);
    await bridge.handle({ type: "message_start", message: whole });
    await bridge.handle({ type: "message_end", message: whole });
    expect(chunks().map((chunk) => chunk.chunk)).toMatchObject([
      { kind: "thinking", delta: "pondering" },
      { kind: "text", delta: "Hello" },
      { kind: "finish", reason: "stop" },
    ]);
    expect(chunks().map((chunk) => chunk.chunkIndex)).toEqual([0, 1, 2]);

    const streamed = bridgeUnderTest(() => "m2");
    const partial = assistantMessage("");
    await streamed.bridge.handle({ type: "message_start", message: partial });
    await streamed.bridge.handle(textDelta(partial, "Hello"));
    await streamed.bridge.handle({ type: "message_end", message: assistantMessage("Hello") });
    expect(streamed.chunks().map((chunk) => chunk.chunk.kind)).toEqual(["text", "finish"]);
  });

  it("a tool-call response whose text came without deltas shows the text before its held calls", async () => {
    const { bridge, chunks } = bridgeUnderTest();
    const message = assistantMessage([text("Let me look."), toolCall("read", { path: "a" }, { id: "c1" })]);
    await bridge.handle({ type: "message_start", message });
    await bridge.handle({ type: "message_end", message });
    expect(chunks().map((chunk) => chunk.chunk)).toMatchObject([{ kind: "text", delta: "Let me look." }]);
    bridge.toolAdmitted("c1");
    await bridge.handle({
      type: "tool_execution_end",
      toolCallId: "c1",
      toolName: "read",
      result: { content: [text("a's text")], details: {} },
      isError: false,
    });
    expect(chunks().map((chunk) => [chunk.chunkIndex, chunk.chunk.kind])).toEqual([
      [0, "text"],
      [1, "tool_call"],
      [2, "tool_call"],
      [3, "finish"],
    ]);
  });

  it("an aborted message emits no finish chunk", async () => {
    const { bridge, chunks } = bridgeUnderTest();
    const message = assistantMessage("cut", { stopReason: "aborted", errorMessage: "Request was aborted" });
    await bridge.handle({ type: "message_start", message });
    bridge.handle(textDelta(message, "cut"));
    bridge.handle({ type: "message_end", message });
    expect(chunks().map((event) => event.chunk.kind)).toEqual(["text"]);
  });

  it("an error message's finish carries the classified code", async () => {
    const { bridge, chunks } = bridgeUnderTest();
    const message = assistantMessage("", {
      stopReason: "error",
      errorMessage: "429 Too Many Requests: rate limit reached",
    });
    await bridge.handle({ type: "message_start", message });
    bridge.handle({ type: "message_end", message });
    const finish = chunks().at(-1)!.chunk as Extract<StreamChunk, { kind: "finish" }>;
    expect(finish).toMatchObject({ kind: "finish", reason: "error", error: { code: ErrorCode.RateLimited } });
    expect(finish.error?.message).toContain("rate limit");
  });

  it("lowers agent_*, turn_* and tool_execution_update to debug.trace; user and tool-result messages emit no chunks", async () => {
    const { bridge, out } = bridgeUnderTest();
    bridge.handle({ type: "agent_start" });
    bridge.handle({ type: "turn_start" });
    await bridge.handle({ type: "message_start", message: { role: "user", content: "hi", timestamp: 1 } });
    bridge.handle({ type: "message_end", message: { role: "user", content: "hi", timestamp: 1 } });
    bridge.handle({
      type: "tool_execution_update",
      toolCallId: "c1",
      toolName: "a",
      args: {},
      partialResult: { content: [], details: { progress: 0.5 } },
    });
    bridge.handle({ type: "turn_end", message: assistantMessage("x"), toolResults: [] });
    bridge.handle({ type: "agent_end", messages: [] });
    expect(out.map((event) => event.type)).toEqual([
      "debug.trace",
      "debug.trace",
      "debug.trace",
      "debug.trace",
      "debug.trace",
    ]);
    expect(out.map((event) => (event.payload as { message: string }).message)).toEqual([
      "agent_start",
      "turn_start",
      "tool_execution_update",
      "turn_end",
      "agent_end",
    ]);
    expect((out[2]!.payload as { attrs?: Record<string, unknown> }).attrs).toMatchObject({
      toolCallId: "c1",
      partialResult: { details: { progress: 0.5 } },
    });
  });

  it("flush releases a held message whose calls never ended, with those calls failed", async () => {
    const { bridge, chunks } = bridgeUnderTest();
    const message = assistantMessage([toolCall("a", {}, { id: "c1" })]);
    await bridge.handle({ type: "message_start", message });
    bridge.handle({ type: "message_end", message });
    bridge.flush();
    expect(chunks().map((event) => event.chunk)).toEqual([
      {
        kind: "tool_call",
        toolCallId: "c1",
        toolName: "a",
        status: "failed",
        arguments: {},
        result: { content: [{ type: "text", text: "Tool call did not finish before the turn ended." }], isError: true },
      },
      { kind: "finish", reason: "toolUse", usage: message.usage },
    ]);
    bridge.flush();
    expect(chunks()).toHaveLength(2);
  });
});
