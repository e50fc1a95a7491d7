import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
  type Model,
  type ToolCall,
} from "@mariozechner/pi-ai";
import { type StreamFn } from "@turnkit/agent-loop";
import { emptyUsage } from "@turnkit/agent-loop/internal";

/** The model every workload talks to. Nothing reads it but the loops under test. */
export const BENCH_MODEL: Model<"bench"> = {
  id: "bench-model",
  name: "bench-model",
  api: "bench",
  provider: "bench",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 100_000,
};

/**
 * Events pushed synchronously per macrotask. pi-ai's `EventStream` keeps
 * undelivered events in an array and takes them with `shift()`, which V8
 * makes O(n) once the array is large (it no longer left-trims it): pushing
 * all 200,000 deltas of W1 at once makes every implementation, the floor
 * included, spend ~20 s in `memmove`. A real provider delivers a network
 * chunk at a time and the consumer drains it before the next read; this
 * models that. Consumers drain a chunk entirely in microtasks, so the one
 * `setImmediate` per chunk (200 in W1) is the only scheduling the stream adds.
 */
export const EVENTS_PER_CHUNK = 1_000;

/** One response, built once and replayed as is on every call: no work per call but pushing. */
export interface ScriptedResponse {
  readonly events: readonly AssistantMessageEvent[];
  readonly message: AssistantMessage;
}

/** Observes the pump between two chunks (W3 samples the heap there). Not used for timing. */
export type ChunkObserver = () => void;

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: BENCH_MODEL.api,
    provider: BENCH_MODEL.provider,
    model: BENCH_MODEL.id,
    usage: emptyUsage(),
    stopReason,
    timestamp: 0,
  };
}

/**
 * A text answer streamed as `deltaCount` deltas of `delta`. Every event
 * carries the same (final) message as its partial, as providers pass one
 * mutable partial around.
 */
export function textResponse(deltaCount: number, delta: string): ScriptedResponse {
  const message = assistant([{ type: "text", text: delta.repeat(deltaCount) }], "stop");
  const events: AssistantMessageEvent[] = [
    { type: "start", partial: message },
    { type: "text_start", contentIndex: 0, partial: message },
  ];
  for (let index = 0; index < deltaCount; index++)
    events.push({ type: "text_delta", contentIndex: 0, delta, partial: message });
  events.push({
    type: "text_end",
    contentIndex: 0,
    content: message.content[0]!.type === "text" ? message.content[0]!.text : "",
    partial: message,
  });
  events.push({ type: "done", reason: "stop", message });
  return { events, message };
}

/**
 * A response of `callCount` calls of `toolName` with empty arguments.
 * Call ids are `s<step>_c<n>`, unique across the steps of one run.
 */
export function toolCallResponse(step: number, callCount: number, toolName: string): ScriptedResponse {
  const calls: ToolCall[] = [];
  for (let index = 0; index < callCount; index++)
    calls.push({ type: "toolCall", id: `s${step}_c${index}`, name: toolName, arguments: {} });
  const message = assistant(calls, "toolUse");
  const events: AssistantMessageEvent[] = [{ type: "start", partial: message }];
  calls.forEach((toolCall, contentIndex) => {
    events.push({ type: "toolcall_start", contentIndex, partial: message });
    events.push({ type: "toolcall_end", contentIndex, toolCall, partial: message });
  });
  events.push({ type: "done", reason: "toolUse", message });
  return { events, message };
}

/**
 * A stream function that answers its n-th call with `responses[n]` (the
 * last one again once they run out). Create one per run: the call counter
 * is its only state. It ignores the model, context, options and signal.
 */
export function scriptedStreamFn(responses: readonly ScriptedResponse[], onChunk?: ChunkObserver): StreamFn {
  let calls = 0;
  return () => {
    const response = responses[Math.min(calls++, responses.length - 1)]!;
    const stream = createAssistantMessageEventStream();
    pump(stream, response.events, 0, onChunk);
    return stream;
  };
}

function pump(
  stream: AssistantMessageEventStream,
  events: readonly AssistantMessageEvent[],
  from: number,
  onChunk: ChunkObserver | undefined,
): void {
  onChunk?.();
  const end = Math.min(from + EVENTS_PER_CHUNK, events.length);
  for (let index = from; index < end; index++) stream.push(events[index]!);
  if (end < events.length) setImmediate(pump, stream, events, end, onChunk);
  else stream.end();
}

/** Consumes a stream as the floor does: iterate every event, do nothing with it. */
export async function drain(stream: AsyncIterable<AssistantMessageEvent>): Promise<number> {
  let count = 0;
  for await (const _event of stream) count++;
  return count;
}
