/*
 * Real PiTurnRunner turns (scripted model) served as the UI message stream
 * and read back by the AI SDK's own parser and reader: text, reasoning,
 * tool calls with input and output, tool errors, steering, warnings,
 * usage and cost, failed and aborted turns, and every resume point.
 */
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, defineSubAgent } from "@turnkit/agent-core";
import {
  createRecordingEventWriter,
  createScriptedModel,
  errorAfter,
  response,
  runScriptedTurn,
  text,
  thinking,
  toolCall,
  userMessage,
  type ScriptEntry,
} from "@turnkit/agent-core/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { readTurnUIMessage } from "../src/index.js";
import {
  collectChunks,
  readEventsWithAiSdk,
  readLiveWithAiSdk,
  readWithAiSdk,
  sseOf,
  textOf,
} from "./support/ai-sdk-reader.js";
import { asking, broken, echo, slow } from "./support/test-tools.js";

const usage = {
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
};

async function turnEvents(script: ScriptEntry[], input: Record<string, unknown> = {}): Promise<RuntimeEvent[]> {
  const result = await runScriptedTurn({ script, input: { tools: [echo, broken], ...input } });
  return [...result.events];
}

const twoSteps = () =>
  turnEvents([
    response(
      [thinking("Let me look."), text("Checking "), toolCall("echo", { value: "abc" }), toolCall("broken", {})],
      {
        usage,
      },
    ),
    response([text("All "), text("done.")], { usage }),
  ]);

describe("a turn as the AI SDK UI message stream", () => {
  it("text, reasoning, tool calls with input and output, a tool error, steps, usage and cost", async () => {
    const events = await twoSteps();
    const { message, errors, chunks } = await readEventsWithAiSdk(events);
    expect(errors).toEqual([]);
    expect(message.id).toBe("turn-1");
    expect(message.role).toBe("assistant");
    expect(
      message.parts.map((part) => {
        if (part.type === "text" || part.type === "reasoning") return `${part.type}:${part.text}:${part.state}`;
        if (part.type.startsWith("tool-")) return `${part.type}:${(part as { state: string }).state}`;
        return part.type;
      }),
    ).toEqual([
      "step-start",
      "reasoning:Let me look.:done",
      "text:Checking :done",
      "tool-echo:output-available",
      "tool-broken:output-error",
      "step-start",
      "text:All done.:done",
    ]);
    const [, , , echoPart, brokenPart] = message.parts as any[];
    expect(echoPart).toMatchObject({
      toolCallId: "call_1",
      input: { value: "abc" },
      output: { content: [{ type: "text", text: "echo abc" }], details: { length: 3 } },
      callProviderMetadata: { turnkit: { messageId: "msg_1" } },
    });
    expect(brokenPart).toMatchObject({ toolCallId: "call_2", input: {}, errorText: "disk on fire" });
    expect(message.metadata).toMatchObject({
      sessionId: "session-1",
      turnId: "turn-1",
      status: "completed",
      steps: 2,
      usage: { input: 200, output: 40, totalTokens: 240, cost: { total: 0.006 } },
    });
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    expect(chunks[0]).toMatchObject({ type: "start", messageId: "turn-1" });
  });

  it("the usage grows as steps finish, before the turn ends", async () => {
    const chunks = (await collectChunks(await twoSteps())).map((c) => c.chunk);
    const running = chunks.filter((c) => c.type === "message-metadata").map((c) => (c as any).messageMetadata);
    expect(running.map((m) => [m.status, m.steps, m.usage.cost.total])).toEqual([
      ["running", 1, 0.003],
      ["running", 2, 0.006],
    ]);
  });

  it("resumed after any event, the stream reads as the whole one (and the wire's ids say where to resume)", async () => {
    const events = await twoSteps();
    const whole = await readEventsWithAiSdk(events);
    const all = await collectChunks(events);
    for (const event of events) {
      const prefix = all.filter((c) => c.seq <= event.seq);
      const rest = await collectChunks(events, event.seq);
      expect(rest).toEqual(all.filter((c) => c.seq > event.seq));
      const resumed = await readWithAiSdk(sseOf([...prefix, ...rest]));
      expect(resumed.message).toEqual(whole.message);
    }
    // On the wire the last chunk of each event carries its seq as the SSE id.
    const wire = await new Response(sseOf(all)).text();
    const ids = [...wire.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([...new Set(all.map((c) => c.seq))]);
    expect(wire.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("a steered message is a data part where the model received it", async () => {
    let steered = false;
    const events = await turnEvents([response([toolCall("echo", { value: "x" })]), response("Tagged too.")], {
      getSteeringMessages: () => (steered ? [] : ((steered = true), [{ text: "also tag it" }])),
    });
    const { message } = await readEventsWithAiSdk(events);
    const types = message.parts.map((p) => p.type);
    const steering = message.parts.find((p) => p.type === "data-turnkit-steering") as any;
    expect(steering.data).toEqual({ text: "also tag it" });
    expect(types.indexOf("data-turnkit-steering")).toBeGreaterThan(types.indexOf("tool-echo"));
    expect(types.indexOf("data-turnkit-steering")).toBeLessThan(types.lastIndexOf("step-start"));
    expect(textOf(message)).toBe("Tagged too.");
  });

  it("a history compacted in the middle of the turn is not steering: its summary and the turn's own prompt are no data parts", async () => {
    const events = await turnEvents([response([toolCall("echo", { value: "x" })]), response("Done.")], {
      hooks: {
        beforeLlmCallHook: (event: { requestIndex: number; messages: readonly unknown[] }) =>
          event.requestIndex === 1
            ? {
                type: "replaceMessages",
                messages: [userMessage("Summary of the conversation so far."), ...event.messages.slice(-3)],
              }
            : undefined,
      },
    });
    expect(events.some((e) => e.type === "message.persisted" && e.payload.reason === "replaceMessages")).toBe(true);
    const { message } = await readEventsWithAiSdk(events);
    expect(message.parts.map((p) => p.type)).toEqual(["step-start", "tool-echo", "step-start", "text"]);
  });

  it("a sub-agent's call is one data part under its call (its status, steps, tool calls and text), sent again as it changes, not once per event; its text and its end are not the turn's", async () => {
    const child = createScriptedModel([
      response([text("Let me look. "), toolCall("echo", { value: "src" })]),
      "Found it in src/a.ts.",
    ]);
    const explore = defineSubAgent({
      name: "explore",
      description: "Searches",
      systemPrompt: "You search.",
      llm: { model: child.model, streamFn: child.streamFn },
      llmRetry: false,
      tools: [echo],
    });
    const result = await runScriptedTurn({
      script: [response([toolCall("explore", { task: "find it" })]), response("It is in src/a.ts.")],
      input: { tools: [explore] },
    });
    const events = [...result.events];
    const { message } = await readEventsWithAiSdk(events);
    const parts = message.parts.filter((p) => p.type === "data-turnkit-sub-agent") as any[];
    const call = message.parts.find((p) => p.type === "tool-explore") as any;
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ id: `sub-agent-${call.toolCallId}` });
    expect(parts[0].data).toEqual({
      toolCallId: call.toolCallId,
      path: [{ toolCallId: call.toolCallId, agent: "explore" }],
      agent: "explore",
      turnId: expect.any(String),
      status: "completed",
      steps: 2,
      text: "Let me look.\nFound it in src/a.ts.",
      tools: [{ toolCallId: expect.any(String), toolName: "echo", state: "done", output: "echo src" }],
    });
    // Sent again when it changed (running, a message done, a result, its end), never per streamed word or trace.
    const sent = (await collectChunks(events)).filter((c) => c.chunk.type === "data-turnkit-sub-agent");
    const fromSubAgent = events.filter((e) => e.origin !== undefined);
    expect(fromSubAgent.filter((e) => e.type === "stream.resp").length).toBeGreaterThan(sent.length);
    expect(sent.map((c) => (c.chunk as any).data.status)).toEqual([
      "running",
      ...sent.slice(1, -1).map(() => "running"),
      "completed",
    ]);
    expect(sent.map((c) => (c.chunk as any).data.tools.map((t: any) => t.state).join())).toContain("running");
    expect(call.output.content[0].text).toBe("Found it in src/a.ts.");
    expect(textOf(message)).toBe("It is in src/a.ts.");
    expect(message.metadata).toMatchObject({ status: "completed" });
  });

  it("an elicitation a tool asked for is a data part the page answers by its request id", async () => {
    const result = await runScriptedTurn({
      script: [response([toolCall("deploy", {})]), response("Deployed.")],
      input: { tools: [asking], answerActionRequest: () => ({ action: "accept", content: { branch: "main" } }) },
    });
    const { message } = await readEventsWithAiSdk([...result.events]);
    const question = message.parts.find((p) => p.type === "data-turnkit-elicitation") as any;
    expect(question.data).toMatchObject({ kind: "elicitation", message: "Which branch?", serverName: "deploy" });
    expect(question.id).toBe(question.data.requestId);
    // Its wait ended: the same part (one, not two) says so, so a page reloaded while the call still ran shows it closed.
    expect(message.parts.filter((p) => p.type === "data-turnkit-elicitation")).toHaveLength(1);
    expect(question.data.outcome).toBe("answered");
    const events = [...result.events];
    const ended = events.findIndex((e) => e.type === "debug.trace" && e.payload.phase === "action.request");
    const midCall = await readEventsWithAiSdk(events.slice(0, ended + 1));
    expect(midCall.message.parts.find((p) => p.type === "tool-deploy")).toMatchObject({ state: "input-available" });
    expect(midCall.message.parts.find((p) => p.type === "data-turnkit-elicitation")).toMatchObject({
      data: { outcome: "answered" },
    });
    const asked = await readEventsWithAiSdk(events.slice(0, ended));
    expect(
      (asked.message.parts.find((p) => p.type === "data-turnkit-elicitation") as any).data.outcome,
    ).toBeUndefined();
    expect(message.parts.some((p) => p.type === "tool-approval-request")).toBe(false);
    expect(textOf(message)).toBe("Deployed.");
  });

  it("a retried request's warning is a data part; a failed turn ends with the AI SDK's error and its code", async () => {
    const events = await turnEvents([errorAfter(0, "429 rate limit exceeded"), errorAfter(0, "500 upstream broke")], {
      llmRetry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const { message, errors, chunks } = await readEventsWithAiSdk(events);
    const warning = message.parts.find((p) => p.type === "data-turnkit-warning") as any;
    expect(warning.data).toMatchObject({ code: "retry_wait", attempt: 1 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^upstream: /);
    expect(message.metadata).toMatchObject({ status: "failed", error: { code: "upstream" } });
    expect(chunks.slice(-2).map((c) => c.type)).toEqual(["error", "finish"]);
  });

  it("an aborted turn ends with the AI SDK's abort chunk, its text kept", async () => {
    const abort = new AbortController();
    const writer = createRecordingEventWriter({
      onEvent: (event) => {
        if (event.type === "stream.resp" && event.payload.chunk.kind === "text") abort.abort();
      },
    });
    const result = await runScriptedTurn({
      script: [response("one two three four five six seven eight", { eventDelayMs: 5 })],
      writer,
      input: { signal: abort.signal },
    });
    const { message, chunks } = await readEventsWithAiSdk(result.events);
    expect(chunks.at(-1)).toMatchObject({ type: "abort" });
    expect(message.metadata).toMatchObject({ status: "aborted" });
    expect(textOf(message)).toMatch(/^one/);
  });

  it("what useChat shows live is what the history shows after a reload: a failed turn ends failed, with its error, in both", async () => {
    const failed = await turnEvents([errorAfter(4, "500 upstream broke")]);
    const live = await readLiveWithAiSdk(failed);
    expect(live.status).toBe("error");
    expect(live.error).toBe("upstream: 500 upstream broke");
    expect(live.message.metadata).toMatchObject({ status: "failed", error: { code: "upstream" } });
    expect(textOf(live.message)).toMatch(/^This scripted/);
    expect(live.message).toEqual(await readTurnUIMessage(failed));
    // The other shapes read the same live and reloaded too.
    for (const events of [await twoSteps(), await turnEvents([response("short")])]) {
      const other = await readLiveWithAiSdk(events);
      expect(other.status).toBe("ready");
      expect(other.message).toEqual(await readTurnUIMessage(events));
    }
  });

  it("aborted mid-text and mid-tool, with parallel calls: useChat ends the message cleanly, as a reload shows it", async () => {
    const abortWhen = async (script: ScriptEntry[], when: (event: RuntimeEvent) => boolean) => {
      const abort = new AbortController();
      const writer = createRecordingEventWriter({
        onEvent: (event) => {
          if (when(event)) abort.abort();
        },
      });
      const result = await runScriptedTurn({ script, writer, input: { tools: [echo, slow], signal: abort.signal } });
      return [...result.events];
    };
    const midText = await abortWhen([response("one two three four five", { eventDelayMs: 1 })], (e) =>
      JSON.stringify(e).includes('"delta":" two"'),
    );
    const midTool = await abortWhen(
      [response([text("Calling "), toolCall("echo", { value: "a" }), toolCall("slow", {})]), response("never")],
      (e) => e.type === "stream.resp" && e.payload.chunk.kind === "tool_call" && e.payload.chunk.status === "started",
    );
    for (const events of [midText, midTool]) {
      const live = await readLiveWithAiSdk(events);
      expect([live.status, live.error, live.message.metadata?.status]).toEqual(["ready", undefined, "aborted"]);
      expect(live.message).toEqual(await readTurnUIMessage(events));
      expect(JSON.stringify(live.message)).not.toContain('"state":"streaming"');
    }
    const calls = (await readLiveWithAiSdk(midTool)).message.parts.filter((p) => p.type.startsWith("tool-")) as any[];
    expect(calls.map((p) => [p.type, p.state])).toEqual([
      ["tool-echo", expect.stringMatching(/^output-/)],
      ["tool-slow", "output-error"],
    ]);
  });
});
