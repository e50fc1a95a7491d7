import type { AgentMessage } from "@turnkit/agent-loop";
import type { HistoryChange } from "./turn-hooks.js";

/** What {@link HistoryCursor.take} answers when nothing is new: one shared empty list, so most calls allocate nothing. */
const NO_CHANGES: readonly HistoryChange[] = Object.freeze([]);

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
    this.pendingReplacement = { reason: "replaceMessages", messages: [...messages], previousMessages: [...previousMessages], metadata };
    this.delivered = messages.length;
  }

  /**
   * The changes not yet delivered for `transcript`, and advances past them.
   * A replacement comes first; then a delta of the messages after the cursor.
   * Returns an empty list when there is nothing new.
   */
  take(transcript: readonly AgentMessage[]): readonly HistoryChange[] {
    if (!this.pendingReplacement && transcript.length <= this.delivered) return NO_CHANGES;
    const changes: HistoryChange[] = [];
    if (this.pendingReplacement) {
      changes.push(this.pendingReplacement);
      this.pendingReplacement = undefined;
    }
    if (transcript.length > this.delivered) {
      const fresh: AgentMessage[] = [];
      for (let index = this.delivered; index < transcript.length; index++) {
        const message = transcript[index]!;
        if (!this.skip(message)) fresh.push(message);
      }
      this.delivered = transcript.length;
      if (fresh.length > 0) changes.push({ reason: "messageDelta", messages: fresh });
    }
    return changes;
  }
}
