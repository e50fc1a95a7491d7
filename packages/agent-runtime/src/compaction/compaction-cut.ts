import type { AgentMessage } from "@turnkit/agent-loop";
import type { ToolCall } from "@mariozechner/pi-ai";
import { describeValue, isList, isRecord } from "@turnkit/agent-loop/internal";
import { estimateMessageTokens, isSentToModel } from "./token-estimate.js";

/** Where a compaction splits a history: everything before `index` is summarised, the rest kept verbatim. */
export interface CompactionCut {
  /** Index of the first kept message (never a tool result, never between a tool call and its result). */
  index: number;
  /**
   * True when the kept part starts with an assistant message: the cut falls
   * inside a turn, whose user request goes into the summary while its later
   * steps stay verbatim.
   */
  splitTurn: boolean;
}

/** Options of {@link findCompactionCut}. */
export interface FindCompactionCutOptions {
  /** Messages before this index are not candidates for the cut (an earlier summary). Default 0. */
  start?: number;
  /** Estimated tokens of the newest messages to keep at least, when a cut point allows. */
  keepRecentTokens: number;
}

/**
 * Where to cut `messages` so that about `keepRecentTokens` of the newest
 * ones stay: walking back from the end until the estimate reaches it, then
 * the nearest cut point at or after that message (or, when there is none,
 * the nearest before it). A cut point is a message that is not a tool
 * result and that no tool call spans: every call whose result is kept is
 * kept too. Cut points inside a turn (before an assistant message) count,
 * so one long turn can be split.
 *
 * `undefined` when nothing can be compacted: the messages after `start`
 * fit within `keepRecentTokens`, no cut point lies after `start` and before
 * the last message, or everything before the cut is never sent to a model.
 * Throws a `TypeError` naming the argument when `messages` is no array or
 * `options` no object with a numeric `keepRecentTokens` (and `start`).
 */
export function findCompactionCut(
  messages: readonly AgentMessage[],
  options: FindCompactionCutOptions,
): CompactionCut | undefined {
  if (!isList(messages))
    throw new TypeError(`findCompactionCut: messages must be an array, got ${describeValue(messages)}`);
  if (!isRecord(options))
    throw new TypeError(`findCompactionCut: options must be an object, got ${describeValue(options)}`);
  if (typeof options.keepRecentTokens !== "number" || Number.isNaN(options.keepRecentTokens))
    throw new TypeError(
      `findCompactionCut: options.keepRecentTokens must be a number, got ${describeValue(options.keepRecentTokens)}`,
    );
  const notMessage = messages.findIndex((message) => !isRecord(message));
  if (notMessage >= 0)
    throw new TypeError(
      `findCompactionCut: messages[${notMessage}] must be a message object, got ${describeValue(messages[notMessage])}`,
    );
  if (options.start !== undefined && (typeof options.start !== "number" || Number.isNaN(options.start)))
    throw new TypeError(`findCompactionCut: options.start must be a number, got ${describeValue(options.start)}`);
  const start = Math.max(0, options.start ?? 0);
  const count = messages.length;
  let reached = -1;
  let kept = 0;
  for (let index = count - 1; index > start; index -= 1) {
    kept += estimateMessageTokens(messages[index]!);
    if (kept >= options.keepRecentTokens) {
      reached = index;
      break;
    }
  }
  if (reached < 0) return undefined;
  const cutPoints = findCutPoints(messages);
  let cut = -1;
  for (let index = reached; index < count; index += 1) {
    if (cutPoints[index]) {
      cut = index;
      break;
    }
  }
  for (let index = reached - 1; cut < 0 && index > start; index -= 1) {
    if (cutPoints[index]) cut = index;
  }
  if (cut <= start) return undefined;
  if (!messages.slice(start, cut).some(isSentToModel)) return undefined;
  return { index: cut, splitTurn: messages[cut]!.role === "assistant" };
}

/**
 * `true` at each index where a history may be cut: index 1 to the last
 * message, not a tool result, and no tool call before the index has its
 * result at or after it. Calls of responses that are never sent and
 * results without a call are left out of the pairing (the request drops
 * them anyway).
 */
function findCutPoints(messages: readonly AgentMessage[]): boolean[] {
  const callIndex = new Map<string, number>();
  // +1 where a call's span opens, -1 past its result: a running sum above 0 means "inside a call's span".
  const spans = new Array<number>(messages.length + 1).fill(0);
  messages.forEach((message, index) => {
    if (message.role === "assistant" && isSentToModel(message)) {
      const blocks: readonly unknown[] = isList(message.content) ? message.content : [];
      for (const block of blocks)
        if ((block as { type?: unknown } | null)?.type === "toolCall") callIndex.set((block as ToolCall).id, index);
    } else if (message.role === "toolResult") {
      const call = callIndex.get(message.toolCallId);
      if (call !== undefined && call < index) {
        spans[call + 1]! += 1;
        spans[index + 1]! -= 1;
      }
    }
  });
  const cutPoints = new Array<boolean>(messages.length).fill(false);
  let open = 0;
  for (let index = 0; index < messages.length; index += 1) {
    open += spans[index]!;
    cutPoints[index] = index > 0 && open === 0 && messages[index]!.role !== "toolResult";
  }
  return cutPoints;
}
