import type { AgentMessage } from "@turnkit/agent-loop";
import { isList, isRecord } from "@turnkit/agent-loop/internal";
import { describeValue } from "../messages/content-checks.js";

/**
 * Checks that a transcript is replayable to any provider: every tool
 * call of a completed assistant message (not `error`/`aborted`, which a
 * request never sends) is followed by exactly one tool result with its id, before
 * the next assistant message. Throws an `Error` listing the calls without a
 * result (or with several); returns the number of calls checked. Throws a
 * `TypeError` naming the message when `transcript` holds one that is no
 * message object, or an assistant message whose content is no array of
 * blocks, and when `transcript` is no array.
 */
export function assertToolCallsAnswered(transcript: readonly AgentMessage[]): number {
  if (!isList(transcript as unknown)) {
    throw new TypeError(
      `assertToolCallsAnswered: expected a transcript (an array of messages), got ${transcript === null ? "null" : typeof transcript}`,
    );
  }
  transcript.forEach(assertMessageShape);
  const problems: string[] = [];
  let checked = 0;
  let open: Map<string, number> | undefined;
  const close = () => {
    if (!open) return;
    for (const [id, count] of open) if (count !== 1) problems.push(`${id}: ${count} results`);
    open = undefined;
  };
  for (const message of transcript) {
    if (message.role === "assistant") {
      close();
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      const calls = message.content.filter((block) => block.type === "toolCall");
      if (calls.length === 0) continue;
      open = new Map(calls.map((call) => [call.id, 0]));
      checked += calls.length;
    } else if (message.role === "toolResult" && open?.has(message.toolCallId)) {
      open.set(message.toolCallId, open.get(message.toolCallId)! + 1);
    }
  }
  close();
  if (problems.length > 0) throw new Error(`Tool calls without exactly one result: ${problems.join(", ")}`);
  return checked;
}

/** Throws a `TypeError` naming `transcript[index]` when the message lacks what the check reads. */
function assertMessageShape(message: unknown, index: number): void {
  const fail = (problem: string) => new TypeError(`assertToolCallsAnswered: transcript[${index}]${problem}`);
  if (!isRecord(message)) throw fail(` must be a message object, got ${describeValue(message)}`);
  if (message.role === "assistant" && !(isList(message.content) && Array.from(message.content).every(isRecord)))
    throw fail(`.content must be an array of content blocks, got ${describeValue(message.content)}`);
}
