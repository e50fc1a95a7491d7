import { thrownText } from "../synthetic-messages.js";
import type { StopReason, TextContent, ThinkingContent, ToolCall, Usage } from "@mariozechner/pi-ai";
import { blockProblem, describeValue, isList, isRecord } from "../message-checks.js";
import { assertOptionsArgument, assertStringArgument } from "../argument-checks.js";

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

/**
 * A text block. Throws a `TypeError` naming the argument when `value` is no
 * string, or `options` (when given) no object with a string `signature`.
 */
export function text(value: string, options: { signature?: string } = {}): TextContent {
  assertStringArgument(value, "text", "value");
  assertOptionsArgument(options, "text");
  assertOptionalString(options.signature, "text", "options.signature");
  const block: TextContent = { type: "text", text: value };
  if (options.signature !== undefined) block.textSignature = options.signature;
  return block;
}

/**
 * A thinking block; `signature` and `redacted` are copied to the streamed
 * block as given. Throws a `TypeError` naming the argument when `value` is no
 * string, or `options` (when given) no object with a string `signature` and
 * a boolean `redacted`.
 */
export function thinking(value: string, options: { signature?: string; redacted?: boolean } = {}): ThinkingContent {
  assertStringArgument(value, "thinking", "value");
  assertOptionsArgument(options, "thinking");
  assertOptionalString(options.signature, "thinking", "options.signature");
  if (options.redacted !== undefined && typeof options.redacted !== "boolean") {
    throw new TypeError(`thinking: options.redacted must be a boolean, got ${describeValue(options.redacted)}`);
  }
  const block: ThinkingContent = { type: "thinking", thinking: value };
  if (options.signature !== undefined) block.thinkingSignature = options.signature;
  if (options.redacted !== undefined) block.redacted = options.redacted;
  return block;
}

/**
 * A tool call block. `args` is deep-copied, so mutating the caller's object
 * later does not change the script. `args` must be JSON-serialisable: it is
 * streamed as the chunks of `JSON.stringify(args)`; any other value (a
 * string, a number, a list) is streamed as given, to script a model that
 * sends malformed arguments. Throws a `TypeError` naming the argument when
 * `name` is no string, `args` cannot be copied (it holds functions) or
 * holds what JSON cannot write (a bigint, a cycle), or `options` (when
 * given) is no object with a string `id`.
 */
export function toolCall(
  name: string,
  args: Record<string, unknown> = {},
  options: { id?: string } = {},
): ScriptedToolCall {
  assertStringArgument(name, "toolCall", "name");
  assertOptionsArgument(options, "toolCall");
  assertOptionalString(options.id, "toolCall", "options.id");
  const block: ScriptedToolCall = { type: "toolCall", name, arguments: copied(args, "toolCall", "args") };
  const notJson = jsonProblem(block.arguments, "args");
  if (notJson) throw new TypeError(`toolCall: args must be JSON data: ${notJson}`);
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
 * deep-copied. Fails at script-building time, so a broken script fails where
 * it is written: a `TypeError` naming the argument or block when `content`
 * is not text, a block or an array of blocks (each a `text`, `thinking` or
 * `toolCall` object with its string fields) or `options` (when given) is no
 * object, a `RangeError` for a non-positive `chunkSize` or a negative
 * `eventDelayMs`.
 */
export function response(
  content: string | ScriptedBlock | readonly ScriptedBlock[],
  options: ResponseOptions = {},
): ScriptedResponse {
  const blocks = scriptedBlocks(content, "response");
  assertOptionsArgument(options, "response");
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

/**
 * What is wrong with an object given as a scripted response (`undefined`:
 * nothing), to follow its name in an error: a response is built by
 * {@link response}, an object of kind `response` with a content list.
 */
export function scriptedResponseProblem(value: Record<string, unknown>): string | undefined {
  if (value.kind !== "response") return ` must be text or response(...), got an object of kind ${String(value.kind)}`;
  return isList(value.content) ? undefined : ".content must be an array of content blocks";
}

/** Throws a `TypeError` naming `name` unless `value` is a string or `undefined`. */
function assertOptionalString(value: unknown, where: string, name: string): void {
  if (value !== undefined) assertStringArgument(value, where, name);
}

/** A deep copy of `value`; a `TypeError` naming `name` when it holds what cannot be copied (functions, symbols). */
/** Where `value` holds what `JSON.stringify` cannot write (`args.a is a bigint`, `args.b refers back to args`), or `undefined`. */
function jsonProblem(value: unknown, path: string, within: Map<object, string> = new Map()): string | undefined {
  if (typeof value === "bigint") return `${path} is a bigint`;
  if (typeof value !== "object" || value === null) return undefined;
  const outer = within.get(value);
  if (outer !== undefined) return `${path} refers back to ${outer}`;
  within.set(value, path);
  for (const [key, item] of Object.entries(value)) {
    const problem = jsonProblem(item, isList(value) ? `${path}[${key}]` : `${path}.${key}`, within);
    if (problem) return problem;
  }
  within.delete(value);
  return undefined;
}

function copied<T>(value: T, where: string, name: string): T {
  try {
    return structuredClone(value);
  } catch (error) {
    throw new TypeError(`${where}: ${name} must be plain data: ${thrownText(error)}`);
  }
}

/**
 * What is wrong with one block of a script (`undefined`: nothing), as a path
 * from the block: an object whose `type` is `text` (a string `text`),
 * `thinking` (a string `thinking`) or `toolCall` (a string `name`, an `id`
 * that is a string when given, and `arguments` JSON can write: no bigint,
 * no cycle; any other shape is streamed as given).
 */
function scriptedBlockProblem(block: unknown): string | undefined {
  if (!isRecord(block) || block.type !== "toolCall") return blockProblem(block, ["text", "thinking", "toolCall"]);
  if (typeof block.name !== "string") return `.name must be a string, got ${describeValue(block.name)}`;
  if (block.id !== undefined && typeof block.id !== "string")
    return `.id must be a string when given, got ${describeValue(block.id)}`;
  const notJson = jsonProblem(block.arguments, "arguments");
  return notJson ? `.arguments must be JSON data: ${notJson}` : undefined;
}

/**
 * The blocks of a scripted message as `where` (`response`,
 * `assistantMessage`) was given them, deep-copied: a string is one text
 * block, a block one block. Throws a `TypeError` naming `where` and the
 * offending argument or block (`response: content[1].text must be a string,
 * got 5`) otherwise.
 */
export function scriptedBlocks(content: unknown, where: string): ScriptedBlock[] {
  if (typeof content === "string") return [text(content)];
  if (!isList(content) && !isRecord(content)) {
    throw new TypeError(
      `${where}: content must be a string, a content block or an array of them, got ${describeValue(content)}`,
    );
  }
  const list: readonly unknown[] = isList(content) ? content : [content];
  // Checked index by index before anything is copied: a list of length 2^32 - 1 fails at its first hole.
  for (let index = 0; index < list.length; index++) {
    const problem = scriptedBlockProblem(list[index]);
    if (problem) throw new TypeError(`${where}: content${isList(content) ? `[${index}]` : ""}${problem}`);
  }
  return copied([...list] as ScriptedBlock[], where, "content");
}
