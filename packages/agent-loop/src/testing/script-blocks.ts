import type { StopReason, TextContent, ThinkingContent, ToolCall, Usage } from "@mariozechner/pi-ai";

/**
 * A tool call in a script. Without `id`, the scripted model assigns
 * `call_1`, `call_2`, ... in the order it plans responses, counting per
 * scripted model; explicit ids are kept and do not advance the count.
 */
export interface ScriptedToolCall extends Omit<ToolCall, "id"> {
  /** The call's id, kept as given; absent: the scripted model numbers it (`call_1`, ...). */
  id?: string;
}

/** One content block of a scripted assistant response. */
export type ScriptedBlock = TextContent | ThinkingContent | ScriptedToolCall;

/** A text block. Never fails. */
export function text(value: string, options: { signature?: string } = {}): TextContent {
  const block: TextContent = { type: "text", text: value };
  if (options.signature !== undefined) block.textSignature = options.signature;
  return block;
}

/** A thinking block; `signature` and `redacted` are copied to the streamed block as given. */
export function thinking(value: string, options: { signature?: string; redacted?: boolean } = {}): ThinkingContent {
  const block: ThinkingContent = { type: "thinking", thinking: value };
  if (options.signature !== undefined) block.thinkingSignature = options.signature;
  if (options.redacted !== undefined) block.redacted = options.redacted;
  return block;
}

/**
 * A tool call block. `args` is deep-copied, so mutating the caller's object
 * later does not change the script. `args` must be JSON-serialisable: it is
 * streamed as the chunks of `JSON.stringify(args)`.
 */
export function toolCall(
  name: string,
  args: Record<string, unknown> = {},
  options: { id?: string } = {},
): ScriptedToolCall {
  const block: ScriptedToolCall = { type: "toolCall", name, arguments: structuredClone(args) };
  if (options.id !== undefined) block.id = options.id;
  return block;
}

/** How one scripted response ends and how it is streamed. */
export interface ResponseOptions {
  /**
   * Final `stopReason`. Default `"toolUse"` when the response has a tool
   * call, else `"stop"`. `"error"` or `"aborted"` stream the content, then end
   * with an `error` event instead of `done`.
   */
  stopReason?: StopReason;
  /** Final usage. Default: all zeros ({@link emptyUsage}). */
  usage?: Usage;
  /** `errorMessage` of the final message; only meaningful with an `error`/`aborted` stop reason. */
  errorMessage?: string;
  /** `responseId` of the final message, as some providers report it. */
  responseId?: string;
  /** Delay before every event, on the scripted model's clock. Default: the model's option, else 0 (no timers). */
  eventDelayMs?: number;
  /**
   * Characters per text/thinking/tool-argument delta. Default: text and
   * thinking are split into words (each delta carries its leading
   * whitespace), tool arguments into 10-character chunks.
   */
  chunkSize?: number;
}

/** One assistant response of a script, as plain data. Build it with {@link response}. */
export interface ScriptedResponse extends Omit<ResponseOptions, "stopReason"> {
  /** Tells a response from a fault (`errorAfter`, `hang`, ...) in a script. */
  kind: "response";
  /** The blocks streamed, in order; a copy of what the script gave. */
  content: ScriptedBlock[];
  /** How the response ends: `error` and `aborted` end with an `error` event instead of `done`. */
  stopReason: StopReason;
}

/**
 * Describes one assistant response. A string is one text block. Blocks are
 * deep-copied. Throws a `RangeError` at script-building time for a
 * non-positive `chunkSize` or a negative `eventDelayMs`, so a broken script
 * fails where it is written.
 */
export function response(
  content: string | ScriptedBlock | readonly ScriptedBlock[],
  options: ResponseOptions = {},
): ScriptedResponse {
  const blocks: ScriptedBlock[] =
    typeof content === "string"
      ? [text(content)]
      : structuredClone(Array.isArray(content) ? [...content] : [content as ScriptedBlock]);
  if (options.chunkSize !== undefined && !(Number.isInteger(options.chunkSize) && options.chunkSize > 0)) {
    throw new RangeError(`response(): chunkSize must be a positive integer, got ${options.chunkSize}`);
  }
  if (options.eventDelayMs !== undefined && !(options.eventDelayMs >= 0)) {
    throw new RangeError(`response(): eventDelayMs must be >= 0, got ${options.eventDelayMs}`);
  }
  const hasToolCall = blocks.some((block) => block.type === "toolCall");
  const scripted: ScriptedResponse = {
    kind: "response",
    content: blocks,
    stopReason: options.stopReason ?? (hasToolCall ? "toolUse" : "stop"),
  };
  if (options.usage !== undefined) scripted.usage = structuredClone(options.usage);
  if (options.errorMessage !== undefined) scripted.errorMessage = options.errorMessage;
  if (options.responseId !== undefined) scripted.responseId = options.responseId;
  if (options.eventDelayMs !== undefined) scripted.eventDelayMs = options.eventDelayMs;
  if (options.chunkSize !== undefined) scripted.chunkSize = options.chunkSize;
  return scripted;
}
