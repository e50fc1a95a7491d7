import type { Context, Message, Model, SimpleStreamOptions, TSchema } from "@mariozechner/pi-ai";
import { forEachListEntry } from "../list-entries.js";
import { contentProblem, describeValue, isList, isRecord } from "../message-checks.js";

/** A tool as a provider sees it: what would be sent, without `execute` or UI fields. */
export interface RecordedTool {
  /** The tool's name, as the model calls it. */
  name: string;
  /** The description the model reads. */
  description: string;
  /** The arguments' JSON schema, as sent. */
  parameters: TSchema;
}

/**
 * Stream options as recorded: every data field as given (including `apiKey`,
 * so a test can check that `getApiKey` was consulted), without `signal` and
 * without function-valued fields (`onPayload`, `onResponse`, ...).
 */
export type RecordedStreamOptions = Omit<SimpleStreamOptions, "signal" | "onPayload" | "onResponse"> &
  Record<string, unknown>;

/**
 * One call of a scripted stream function, frozen at call time: later
 * mutation of the caller's model, messages, tools or options does not change
 * it.
 */
export interface RecordedRequest {
  /** Position in `requests`, from 0. Messages that count requests say `#index+1`. */
  index: number;
  /** Copy of the model the caller passed (not necessarily the scripted one). */
  model: Model<any>;
  /** Copy of the context; tools reduced to {@link RecordedTool}. */
  context: { systemPrompt?: string; messages: Message[]; tools?: RecordedTool[] };
  /** Copy of the options; see {@link RecordedStreamOptions}. */
  options: RecordedStreamOptions;
  /** Whether the caller passed an `AbortSignal` (the signal itself is not recorded). */
  hasSignal: boolean;
}

/**
 * Deep copy for recording. `structuredClone` when it can; otherwise (data
 * that holds functions, signals or class instances, or nesting too deep
 * for it) a structural copy that drops functions and `AbortSignal`s, down
 * to {@link SNAPSHOT_MAX_DEPTH} levels; what lies deeper is recorded as
 * it is, not copied, and what cannot be read (a revoked proxy, a getter
 * that throws) is left out. Never throws.
 */
export function snapshotValue<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return copyWithoutFunctions(value, new WeakMap(), 0) as T;
  }
}

/** How deep {@link snapshotValue}'s own copy goes. */
const SNAPSHOT_MAX_DEPTH = 256;

function copyWithoutFunctions(value: unknown, seen: WeakMap<object, unknown>, depth: number): unknown {
  if (value === null || typeof value !== "object") return typeof value === "function" ? undefined : value;
  if (seen.has(value)) return seen.get(value);
  if (depth >= SNAPSHOT_MAX_DEPTH) return value;
  try {
    return copyObject(value, seen, depth);
  } catch {
    // A proxy that is revoked or cannot be listed, a getter that throws: not recorded.
    return undefined;
  }
}

function copyObject(value: object, seen: WeakMap<object, unknown>, depth: number): unknown {
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return undefined;
  if (isList(value)) {
    const copy: unknown[] = new Array(value.length);
    seen.set(value, copy);
    forEachListEntry(value, (item, index) => {
      copy[index] = copyWithoutFunctions(item, seen, depth + 1);
    });
    return copy;
  }
  if (value instanceof Map || value instanceof Set || value instanceof Date || ArrayBuffer.isView(value)) {
    try {
      return structuredClone(value);
    } catch {
      // Falls through to a field copy (e.g. a Map holding functions).
    }
  }
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [key, field] of Object.entries(value)) {
    const copied = copyWithoutFunctions(field, seen, depth + 1);
    // A function, a signal or what cannot be read is left out; a field that is `undefined` stays.
    if (copied !== undefined || field === undefined) copy[key] = copied;
  }
  return copy;
}

function recordOptions(options: SimpleStreamOptions | undefined): RecordedStreamOptions {
  const recorded: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(options ?? {})) {
    if (key === "signal" || typeof field === "function" || field === undefined) continue;
    recorded[key] = snapshotValue(field);
  }
  return recorded as RecordedStreamOptions;
}

/** Builds the frozen record of one stream call. Never throws. */
export function recordRequest(
  index: number,
  model: Model<any>,
  context: Context,
  options: SimpleStreamOptions | undefined,
): RecordedRequest {
  const recordedContext: RecordedRequest["context"] = { messages: snapshotValue(context?.messages ?? []) };
  if (context?.systemPrompt !== undefined) recordedContext.systemPrompt = context.systemPrompt;
  if (context?.tools !== undefined) {
    recordedContext.tools = context.tools.map((tool) =>
      snapshotValue({ name: tool.name, description: tool.description, parameters: tool.parameters }),
    );
  }
  return {
    index,
    model: snapshotValue(model),
    context: recordedContext,
    options: recordOptions(options),
    hasSignal: options?.signal !== undefined,
  };
}

/**
 * All text the user and the tools contributed to a request, in order, one
 * message per line (text blocks of one message joined by newlines). Assistant
 * messages, the system prompt and images are left out. For assertions like
 * `expect(requestText(req)).toContain("tool output")`. Throws a `TypeError`
 * naming the field when `request` is no object with `context.messages`, an
 * array of message objects whose user and tool-result content is text or
 * text and image blocks.
 */
export function requestText(request: Pick<RecordedRequest, "context">): string {
  assertRequestMessages(request);
  const parts: string[] = [];
  for (const message of request.context.messages) {
    if (message.role !== "user" && message.role !== "toolResult") continue;
    if (typeof message.content === "string") {
      parts.push(message.content);
      continue;
    }
    const texts = message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
    if (texts.length > 0) parts.push(texts.join("\n"));
  }
  return parts.join("\n");
}

/** Throws a `TypeError` naming the field of `request` that {@link requestText} cannot read. */
function assertRequestMessages(request: unknown): asserts request is Pick<RecordedRequest, "context"> {
  const fail = (field: string, value: unknown, expected: string): never => {
    throw new TypeError(`requestText: ${field} must be ${expected}, got ${describeValue(value)}`);
  };
  if (!isRecord(request)) fail("request", request, "a recorded request { context: { messages } }");
  const { context } = request as Record<string, unknown>;
  if (!isRecord(context)) fail("request.context", context, "an object { messages }");
  const { messages } = context as Record<string, unknown>;
  if (!isList(messages)) fail("request.context.messages", messages, "an array of messages");
  (messages as unknown[]).forEach((message, index) => {
    const field = `request.context.messages[${index}]`;
    if (!isRecord(message)) fail(field, message, "a message object with a role");
    const { role, content } = message as Record<string, unknown>;
    const problem = role === "user" || role === "toolResult" ? contentProblem(content) : undefined;
    if (problem) throw new TypeError(`requestText: ${field}.${problem}`);
  });
}
