import type {
  AssistantMessage,
  ImageContent,
  StopReason,
  TextContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "@mariozechner/pi-ai";
import { contentProblem } from "../message-checks.js";
import { emptyUsage } from "../synthetic-messages.js";
import { assertNumberArgument, assertOptionsArgument, assertStringArgument } from "../argument-checks.js";
import { SCRIPTED_API, SCRIPTED_MODEL_ID, SCRIPTED_PROVIDER } from "./scripted-defaults.js";
import { scriptedBlocks, text, type ScriptedBlock } from "./script-blocks.js";

/** A usage record with every count and cost at zero; a fresh object on each call. */
export { emptyUsage };

/**
 * The usage a scripted response reports: `input` and `output` tokens, no
 * cache, `totalTokens` their sum, and `cost` (default 0) split evenly
 * between input and output, so sums over several responses stay exact for
 * costs that are sums of powers of two. Throws a `TypeError` naming the
 * argument that is no number.
 */
export function usageOf(input: number, output: number, cost = 0): Usage {
  assertNumberArgument(input, "usageOf", "input");
  assertNumberArgument(output, "usageOf", "output");
  assertNumberArgument(cost, "usageOf", "cost");
  return {
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}

/**
 * A user message. A string stays a string (as pi's `Agent.prompt` sends it);
 * an array of blocks is copied. `timestamp` defaults to `Date.now()`: pass
 * one when comparing transcripts with `toEqual`. Throws a `TypeError` naming
 * the argument when `content` is neither a string nor an array of text and
 * image blocks, or `options` (when given) is no object.
 */
export function userMessage(
  content: string | readonly (TextContent | ImageContent)[],
  options: { timestamp?: number } = {},
): UserMessage {
  assertMessageContent(content, "userMessage");
  assertMessageOptions(options, "userMessage");
  return {
    role: "user",
    content: typeof content === "string" ? content : structuredClone([...content]),
    timestamp: options.timestamp ?? Date.now(),
  };
}

/** Options of {@link assistantMessage}. */
export interface AssistantMessageOptions {
  /** Default `"toolUse"` when any tool call, else `"stop"`. */
  stopReason?: StopReason;
  /** Set on the message as given; absent by default. Meaningful with an `error` or `aborted` stop reason. */
  errorMessage?: string;
  /** Default {@link emptyUsage}. */
  usage?: Usage;
  /** Default `Date.now()`. */
  timestamp?: number;
}

/**
 * A finished assistant message as the scripted model would produce it:
 * `api`/`provider`/`model` are the scripted model's. A string is one text
 * block. Tool calls without an id get `call_1`, `call_2`, ... counted within
 * this message only, so give explicit ids when a transcript holds several
 * such messages. Throws a `TypeError` naming the argument when `content` is
 * not text, a block or an array of blocks (as for `response`), or `options`
 * (when given) is no object.
 */
export function assistantMessage(
  content: string | ScriptedBlock | readonly ScriptedBlock[],
  options: AssistantMessageOptions = {},
): AssistantMessage {
  const blocks = scriptedBlocks(content, "assistantMessage");
  assertMessageOptions(options, "assistantMessage");
  let toolCalls = 0;
  const finished = blocks.map((block): AssistantMessage["content"][number] => {
    if (block.type !== "toolCall") return block;
    toolCalls += 1;
    return { ...block, id: block.id ?? `call_${toolCalls}` } as ToolCall;
  });
  const message: AssistantMessage = {
    role: "assistant",
    content: finished,
    api: SCRIPTED_API,
    provider: SCRIPTED_PROVIDER,
    model: SCRIPTED_MODEL_ID,
    usage: options.usage ? structuredClone(options.usage) : emptyUsage(),
    stopReason: options.stopReason ?? (toolCalls > 0 ? "toolUse" : "stop"),
    timestamp: options.timestamp ?? Date.now(),
  };
  if (options.errorMessage !== undefined) message.errorMessage = options.errorMessage;
  return message;
}

/** Options of {@link toolResultMessage}. */
export interface ToolResultMessageOptions<TDetails> {
  /** Default `false`. */
  isError?: boolean;
  /** The result's `details` (kept by reference, not copied); absent by default. */
  details?: TDetails;
  /** Default `Date.now()`. */
  timestamp?: number;
}

/**
 * A tool-result message answering `toolCallId`. A string is one text block.
 * Throws a `TypeError` naming the argument when `toolCallId` or `toolName`
 * is no string, `content` neither a string nor an array of text and image
 * blocks, or `options` (when given) no object.
 */
export function toolResultMessage<TDetails = unknown>(
  toolCallId: string,
  toolName: string,
  content: string | readonly (TextContent | ImageContent)[],
  options: ToolResultMessageOptions<TDetails> = {},
): ToolResultMessage<TDetails> {
  assertStringArgument(toolCallId, "toolResultMessage", "toolCallId");
  assertStringArgument(toolName, "toolResultMessage", "toolName");
  assertMessageContent(content, "toolResultMessage");
  assertMessageOptions(options, "toolResultMessage");
  const message: ToolResultMessage<TDetails> = {
    role: "toolResult",
    toolCallId,
    toolName,
    content: typeof content === "string" ? [text(content)] : structuredClone([...content]),
    isError: options.isError ?? false,
    timestamp: options.timestamp ?? Date.now(),
  };
  if (options.details !== undefined) message.details = options.details;
  return message;
}

/** Throws a `TypeError` naming `where` unless `content` is a string or an array of well-formed text and image blocks. */
function assertMessageContent(content: unknown, where: string): void {
  const problem = contentProblem(content);
  if (problem) throw new TypeError(`${where}: ${problem}`);
}

/** Throws a `TypeError` naming `where` unless `options` is no options or an object whose `timestamp`, when given, is a number. */
function assertMessageOptions(options: unknown, where: string): asserts options is { timestamp?: unknown } | undefined {
  assertOptionsArgument(options, where);
  if (options?.timestamp !== undefined) assertNumberArgument(options.timestamp, where, "options.timestamp");
}
