import { emptyUsage } from "@turnkit/agent-loop";
import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
  type Context,
  type Model,
} from "@mariozechner/pi-ai";
import type { StreamFn, StreamFnOptions } from "../../src/call-stack/stream-fn.js";

/**
 * One scripted call of {@link scriptedStreamFn}:
 * - `text`: `start`, the pieces as text deltas, `done`.
 * - `thinking`: `start`, the pieces as thinking deltas, then text `answer`, `done`.
 * - `toolCall`: `start`, one tool call, `done` with stopReason `toolUse`.
 * - `error`: `start`, the `pieces` as text deltas, then `error` with `message`.
 * - `hang`: `start` (unless `silent`), the pieces, then nothing until the
 *   signal fires (then an `aborted` error, as pi-ai does).
 * - `throw`: the stream function throws `error` synchronously.
 * - `reject`: the stream function returns a promise rejected with `error`.
 */
export type ScriptedCall =
  | { kind: "text"; pieces: readonly string[] }
  | { kind: "thinking"; pieces: readonly string[]; answer: string }
  | { kind: "toolCall"; name: string; args: Record<string, unknown> }
  | { kind: "error"; message: string; pieces?: readonly string[]; emptyDelta?: boolean }
  | { kind: "hang"; pieces?: readonly string[]; silent?: boolean }
  | { kind: "throw"; error: unknown }
  | { kind: "reject"; error: unknown };

export interface RecordedCall {
  model: Model<any>;
  context: Context;
  options: (StreamFnOptions & Record<string, unknown>) | undefined;
}

export type ScriptedStreamFn = StreamFn & { readonly calls: RecordedCall[] };

/** A stream function that plays one scripted call per invocation and records what it was given. */
export function scriptedStreamFn(script: readonly ScriptedCall[]): ScriptedStreamFn {
  const queue = [...script];
  const calls: RecordedCall[] = [];
  const fn = ((model: Model<any>, context: Context, options?: StreamFnOptions) => {
    calls.push({ model, context, options: options as RecordedCall["options"] });
    const step = queue.shift() ?? { kind: "error", message: "500 no scripted call left" };
    if (step.kind === "throw") throw step.error;
    if (step.kind === "reject") return Promise.reject(step.error);
    const stream = createAssistantMessageEventStream();
    void play(step, model, options, stream);
    return stream;
  }) as ScriptedStreamFn;
  Object.defineProperty(fn, "calls", { value: calls });
  return fn;
}

async function play(
  step: Exclude<ScriptedCall, { kind: "throw" | "reject" }>,
  model: Model<any>,
  options: StreamFnOptions | undefined,
  stream: AssistantMessageEventStream,
): Promise<void> {
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  const message = emptyMessage(model);
  const push = async (event: AssistantMessageEvent) => {
    await tick();
    stream.push(event);
  };
  const pushText = async (pieces: readonly string[]) => {
    if (pieces.length === 0) return;
    const block = { type: "text" as const, text: "" };
    message.content.push(block);
    const contentIndex = message.content.length - 1;
    await push({ type: "text_start", contentIndex, partial: message });
    for (const piece of pieces) {
      block.text += piece;
      await push({ type: "text_delta", contentIndex, delta: piece, partial: message });
    }
  };

  if (!(step.kind === "hang" && step.silent)) await push({ type: "start", partial: message });
  switch (step.kind) {
    case "text":
      await pushText(step.pieces);
      await push({ type: "done", reason: "stop", message });
      stream.end();
      return;
    case "thinking": {
      const block = { type: "thinking" as const, thinking: "" };
      message.content.push(block);
      await push({ type: "thinking_start", contentIndex: 0, partial: message });
      for (const piece of step.pieces) {
        block.thinking += piece;
        await push({ type: "thinking_delta", contentIndex: 0, delta: piece, partial: message });
      }
      await pushText([step.answer]);
      await push({ type: "done", reason: "stop", message });
      stream.end();
      return;
    }
    case "toolCall": {
      const call = { type: "toolCall" as const, id: "call_1", name: step.name, arguments: step.args };
      message.content.push(call);
      await push({ type: "toolcall_start", contentIndex: 0, partial: message });
      await push({ type: "toolcall_end", contentIndex: 0, toolCall: call, partial: message });
      message.stopReason = "toolUse";
      await push({ type: "done", reason: "toolUse", message });
      stream.end();
      return;
    }
    case "error":
      if (step.emptyDelta) {
        message.content.push({ type: "text", text: "" });
        await push({ type: "text_start", contentIndex: 0, partial: message });
        await push({ type: "text_delta", contentIndex: 0, delta: "", partial: message });
      }
      await pushText(step.pieces ?? []);
      message.stopReason = options?.signal?.aborted ? "aborted" : "error";
      message.errorMessage = step.message;
      await push({ type: "error", reason: message.stopReason, error: message });
      stream.end();
      return;
    case "hang": {
      await pushText(step.pieces ?? []);
      const signal = options?.signal;
      const onAbort = () => {
        message.stopReason = "aborted";
        message.errorMessage = "Request was aborted";
        stream.push({ type: "error", reason: "aborted", error: message });
        stream.end();
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      return;
    }
  }
}

/** An assistant message with nothing in it yet. */
export function emptyMessage(model: Model<any>): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 0,
  };
}

/** Reads a stream to its end: every event type, the visible text, and the final message. */
export async function collect(stream: AssistantMessageEventStream | Promise<AssistantMessageEventStream>) {
  const events: AssistantMessageEvent[] = [];
  for await (const event of await stream) events.push(event);
  const final = await (await stream).result();
  const text = events
    .filter((event): event is Extract<AssistantMessageEvent, { type: "text_delta" }> => event.type === "text_delta")
    .map((event) => event.delta)
    .join("");
  return { events, types: events.map((event) => event.type), text, final };
}

/** A minimal model for unit tests (never contacted). */
export function testModel(overrides: Partial<Model<"openai-completions">> = {}): Model<"openai-completions"> {
  return {
    id: "test-model",
    name: "Test model",
    api: "openai-completions",
    provider: "test",
    baseUrl: "http://127.0.0.1:9/v1",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 100_000,
    maxTokens: 8_000,
    ...overrides,
  };
}

/** A one-message context. */
export function userContext(text = "hi"): Context {
  return { messages: [{ role: "user", content: text, timestamp: 0 }] };
}
