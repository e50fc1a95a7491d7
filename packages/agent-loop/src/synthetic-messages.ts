import type { AssistantMessage, Model, ToolResultMessage, Usage } from "@mariozechner/pi-ai";
import type { AgentToolCall, AgentToolResult } from "./types.js";
import { copyListEntries } from "./list-entries.js";

/** A usage record of zeros; a fresh object each call, safe to mutate. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** The `errorMessage` of an aborted response, as pi-ai's providers write it. */
export const ABORTED_ERROR_MESSAGE = "Request was aborted";

/**
 * Readable text of anything thrown: an `Error`'s message (its name when the
 * message is empty), a string as it is, anything else as JSON or `String`
 * writes it. Never throws: a value whose text cannot be read (a `toString`
 * or `message` getter that throws) is described by its kind instead, and
 * the engine's error for a revoked proxy is said in words.
 */
export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return messageOf(error) || textOf(error.name);
    if (typeof error === "string") return error;
    try {
      return JSON.stringify(error) ?? stringOf(error);
    } catch {
      return stringOf(error);
    }
  } catch {
    return unreadableText(error);
  }
}

/**
 * Text of a tool error result for anything a tool or tool hook threw: the
 * message of an `Error`, else `String(value)` (as pi-agent-core writes it).
 * Never throws, and always a string: a value whose text cannot be read (a
 * `toString` or `message` getter that throws) is described by its kind
 * instead, so the call still gets its error result; the engine's error for
 * a revoked proxy (a tool that returned one) is said in words.
 */
export function thrownText(error: unknown): string {
  try {
    return error instanceof Error ? messageOf(error) : stringOf(error);
  } catch {
    return unreadableText(error);
  }
}

/** How a value no code can read (a revoked proxy) is said in an error's text. */
export const UNREADABLE_VALUE_TEXT = "a value that cannot be read (a revoked proxy)";

/** What the engine throws when code touches a revoked proxy ("Cannot perform 'get' on a proxy that has been revoked"). */
const REVOKED_PROXY_ERROR = /on a proxy that has been revoked/;

/**
 * An `Error`'s message, except that the engine's `TypeError` for a revoked
 * proxy (one a tool returned, which the engine reads while settling the
 * tool's promise, or one some code touched) is said in words.
 */
function messageOf(error: Error): string {
  const message = textOf(error.message);
  return error instanceof TypeError && REVOKED_PROXY_ERROR.test(message) ? UNREADABLE_VALUE_TEXT : message;
}

/** `value` when it is a string, else `String(value)` (an `Error` whose `message` was set to something else). */
function textOf(value: unknown): string {
  return typeof value === "string" ? value : stringOf(value);
}

/** The longest list {@link stringOf} joins. */
const MAX_JOINED_ENTRIES = 2 ** 16;

/**
 * `String(value)`, except for a list longer than {@link MAX_JOINED_ENTRIES},
 * said in words: a list whose length was set to 2^32 - 1 would be joined
 * entry by entry, blocking the process for hours. May throw (a `toString`
 * that throws, a revoked proxy), as `String` does.
 */
function stringOf(value: unknown): string {
  if (Array.isArray(value) && value.length > MAX_JOINED_ENTRIES) return `an array of ${value.length} entries`;
  return String(value);
}

function unreadableText(error: unknown): string {
  let kind = typeof error === "object" ? "an object" : `a ${typeof error}`;
  try {
    if (error instanceof Error) kind = "an Error";
  } catch {
    // A revoked proxy: not even its prototype can be read.
  }
  return `Threw ${kind} whose text could not be read`;
}

/**
 * A copy of `message` that shares nothing a stream writes into with it: its
 * content array and blocks (tool-call arguments copied in depth), its usage
 * and cost, so nothing done to the original later (a provider still
 * streaming deltas into its partial, a hook editing it in place) shows up in
 * the copy. Other top-level fields are copied by value (objects among them
 * are shared). In arguments, class instances are kept by reference, and so
 * is anything nested deeper than {@link SNAPSHOT_MAX_DEPTH} (a cycle is
 * never followed forever); a `"__proto__"` key from a model's arguments
 * stays an own property, never a prototype.
 *
 * The loop delivers every failed response built from a streamed partial
 * (its own failure messages, and `error` / `aborted` messages a stream hands
 * over) as such a snapshot: pi-ai's providers stream into one mutable object
 * and hand that same object out as each event's partial and as the final
 * message, and a request may still be writing into it when the loop stops.
 */
export function snapshotMessage<T extends AssistantMessage>(message: T): T {
  const usage = message.usage;
  return {
    ...message,
    content: Array.isArray(message.content) ? copyListEntries(message.content, copyBlock) : message.content,
    usage: usage && { ...usage, cost: usage.cost && { ...usage.cost } },
  };
}

function copyBlock(block: AssistantMessage["content"][number]): AssistantMessage["content"][number] {
  if (block?.type === "toolCall")
    return { ...block, arguments: copyPlainData(block.arguments, 0) as typeof block.arguments };
  if (block?.type === "text" || block?.type === "thinking") return { ...block };
  return copyPlainData(block, 0) as typeof block;
}

/** How deep {@link snapshotMessage} copies arguments; far beyond any real arguments, low enough for any stack. */
const SNAPSHOT_MAX_DEPTH = 64;

function copyPlainData(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > SNAPSHOT_MAX_DEPTH) return value;
  if (Array.isArray(value)) return copyListEntries(value, (item) => copyPlainData(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
  for (const key of Object.keys(source)) {
    const item = copyPlainData(source[key], depth + 1);
    // Assigning "__proto__" would replace the copy's prototype; define it as data instead.
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/**
 * The assistant message the loop records when a request could not produce
 * one (behaviour L9): `stopReason` `"aborted"` when the run's signal fired, else
 * `"error"`, with `errorMessage`. Keeps whatever content had streamed, as a
 * snapshot taken now: a `partial` the provider keeps writing into never
 * changes the returned message.
 */
export function failedAssistantMessage(
  model: Model<any>,
  error: unknown,
  aborted: boolean,
  partial?: AssistantMessage,
): AssistantMessage {
  const streamed = partial ? snapshotMessage(partial) : undefined;
  return {
    role: "assistant",
    content: streamed ? streamed.content : [],
    // `model?.`: a run misconfigured without a model must still end (behaviour L9), not throw here.
    api: streamed?.api ?? model?.api ?? "unknown",
    provider: streamed?.provider ?? model?.provider ?? "unknown",
    model: streamed?.model ?? model?.id ?? "unknown",
    usage: streamed?.usage ?? emptyUsage(),
    stopReason: aborted ? "aborted" : "error",
    errorMessage: aborted ? ABORTED_ERROR_MESSAGE : errorText(error),
    timestamp: streamed?.timestamp ?? Date.now(),
  };
}

/** An error tool result with one text block and empty `details` (`{}`, as pi writes it). */
export function errorToolResult(text: string): AgentToolResult<Record<string, never>> {
  return { content: [{ type: "text", text }], details: {} };
}

/** The tool-result message recorded for one finished call. */
export function toolResultMessage(
  toolCall: AgentToolCall,
  result: AgentToolResult<unknown>,
  isError: boolean,
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: result.content,
    details: result.details,
    isError,
    timestamp: Date.now(),
  };
}

/** Texts of the error results the loop writes itself, so hosts and tests can match them. */
export const ToolResultText = {
  /** A call naming no tool of `context.tools`; `name` is the name the model called. The call never executes. */
  notFound: (name: string) => `Tool ${name} not found`,
  /** A call `beforeToolCall` blocked without giving a `reason`. */
  blocked: "Tool execution was blocked",
  /** Each call of a response cut off at the output token limit (behaviour L11); none of them executes. */
  truncated:
    'Tool call was not executed: the response was cut off at the output token limit (stopReason "length"), so its arguments may be incomplete.',
  /**
   * A call whose tool never started because the run's signal fired first
   * (before or during its admission: `tool_execution_start` listeners,
   * argument preparation, `beforeToolCall`, `onToolExecutionStart`).
   */
  aborted: "Tool call was not executed: the run was aborted.",
  /**
   * A call whose tool did start but had not settled when the abort grace ran
   * out, or whose result was lost when an aborted run closed. The tool may
   * have had effects; its late result is discarded.
   */
  interrupted: "Tool call was interrupted: the run was aborted after the tool started, and its result was discarded.",
  /** A call of a sequential batch skipped because a hook returned `terminateAgent` for an earlier call. */
  stoppedByHook: "Tool call was not executed: a hook stopped the agent.",
  /**
   * A call whose tool never started, still unanswered when the run failed
   * (e.g. a listener threw); `reason` is the failure's text. An aborted run
   * uses `aborted`.
   */
  runFailed: (reason: string) => `Tool call was not executed: the run failed (${reason}).`,
  /**
   * A call whose tool had started when the run failed; `reason` is the
   * failure's text. The tool may have had effects; its result is lost. An
   * aborted run uses `interrupted`.
   */
  runFailedAfterStart: (reason: string) =>
    `Tool call was interrupted: the run failed after the tool started (${reason}), and its result was discarded.`,
} as const;
