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
import { emptyUsage } from "../synthetic-messages.js";
import { SCRIPTED_API, SCRIPTED_MODEL_ID, SCRIPTED_PROVIDER } from "./scripted-defaults.js";
import { text, type ScriptedBlock } from "./script-blocks.js";

/** A usage record with every count and cost at zero; a fresh object on each call. */
export { emptyUsage };

/**
 * The usage a scripted response reports: `input` and `output` tokens, no
 * cache, `totalTokens` their sum, and `cost` (default 0) split evenly
 * between input and output, so sums over several responses stay exact for
 * costs that are sums of powers of two.
 */
export function usageOf(input: number, output: number, cost = 0): Usage {
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
 * one when comparing transcripts with `toEqual`.
 */
export function userMessage(
  content: string | readonly (TextContent | ImageContent)[],
  options: { timestamp?: number } = {},
): UserMessage {
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
 * such messages.
 */
export function assistantMessage(
  content: string | ScriptedBlock | readonly ScriptedBlock[],
  options: AssistantMessageOptions = {},
): AssistantMessage {
  const blocks: ScriptedBlock[] =
    typeof content === "string"
      ? [text(content)]
      : structuredClone(Array.isArray(content) ? [...content] : [content as ScriptedBlock]);
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

/** A tool-result message answering `toolCallId`. A string is one text block. */
export function toolResultMessage<TDetails = unknown>(
  toolCallId: string,
  toolName: string,
  content: string | readonly (TextContent | ImageContent)[],
  options: ToolResultMessageOptions<TDetails> = {},
): ToolResultMessage<TDetails> {
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
