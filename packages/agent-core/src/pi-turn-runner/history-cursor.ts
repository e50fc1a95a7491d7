import type { AgentMessage } from "@turnkit/agent-loop";
import type { HistoryChange } from "./turn-hooks.js";

/**
 * Tracks which messages of a transcript the host has been given.
 * It starts after the caller's history, so that history is never re-sent;
 * each later message is delivered once, in order. A persistent replacement
 * (compaction) is delivered whole and moves the cursor to its end.
 *
 * Messages for which `skip` answers true (responses a hook dropped) are
 * passed over, never delivered.
 */
export class HistoryCursor {
  private delivered: number;
  private pendingReplacement: Extract<HistoryChange, { reason: "replaceMessages" }> | undefined;

  constructor(
    startAfter: number,
    private readonly skip: (message: AgentMessage) => boolean,
  ) {
    this.delivered = startAfter;
  }

  /** Records a persistent replacement; it is delivered by the next {@link take}. */
  replace(previousMessages: AgentMessage[], messages: AgentMessage[], metadata?: Record<string, unknown>): void {
    this.pendingReplacement = {
      reason: "replaceMessages",
      messages: [...messages],
      previousMessages: [...previousMessages],
      metadata,
    };
    this.delivered = messages.length;
  }

  /**
   * The changes not yet delivered for `transcript`, and advances past them.
   * A replacement comes first; then a delta of the messages after the cursor.
   * Returns an empty list when there is nothing new.
   */
  take(transcript: readonly AgentMessage[]): readonly HistoryChange[] {
    const replacement = this.pendingReplacement;
    this.pendingReplacement = undefined;
    const fresh = this.freshMessages(transcript);
    if (replacement) return fresh ? [replacement, { reason: "messageDelta", messages: fresh }] : [replacement];
    return fresh ? [{ reason: "messageDelta", messages: fresh }] : [];
  }

  /** The messages after the cursor that are not skipped, or `undefined` when there are none; advances past them. */
  private freshMessages(transcript: readonly AgentMessage[]): AgentMessage[] | undefined {
    if (transcript.length <= this.delivered) return undefined;
    // One array of the exact size in the usual case: nothing in the delta is skipped.
    let fresh = transcript.slice(this.delivered);
    this.delivered = transcript.length;
    if (fresh.some((message) => this.skip(message))) fresh = fresh.filter((message) => !this.skip(message));
    return fresh.length > 0 ? fresh : undefined;
  }
}
