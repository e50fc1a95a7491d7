import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import { snapshotMessage } from "./synthetic-messages.js";

/**
 * What of one streamed response its reader has been handed, block by block.
 *
 * pi-ai's providers stream into one live message and hand that object out
 * as every event's `partial`. While the reader handles an event, the
 * provider may already have written the text of later events into it, still
 * queued and never read. A response the reader ends early (a failing
 * listener, an abort, a timeout) must keep only what the reader was shown,
 * or the kept message says more than the host ever saw: {@link cut} gives
 * that copy. Nothing here reads the partial when an event arrives; the
 * deltas and block ends say how far each block was shown.
 */
export class ShownContent {
  /** Per content index of a text or thinking block: how many characters of it were shown. */
  private readonly shownLength = new Map<number, number>();
  /** One past the highest content index an event named; 0 before any block event. */
  private blocks = 0;

  /** Forgets everything noted: a new response starts. */
  reset(): void {
    this.shownLength.clear();
    this.blocks = 0;
  }

  /** Notes that the reader was handed `event` (any event of the response, in order). */
  note(event: AssistantMessageEvent): void {
    const index = (event as { contentIndex?: unknown }).contentIndex;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0) return;
    this.blocks = Math.max(this.blocks, index + 1);
    switch (event.type) {
      case "text_start":
      case "thinking_start":
        this.shownLength.set(index, 0);
        return;
      case "text_delta":
      case "thinking_delta":
        if (typeof event.delta === "string")
          this.shownLength.set(index, (this.shownLength.get(index) ?? 0) + event.delta.length);
        return;
      case "text_end":
      case "thinking_end":
        if (typeof event.content === "string") this.shownLength.set(index, event.content.length);
        return;
      default:
        return;
    }
  }

  /**
   * A copy of `partial` (see `snapshotMessage`) holding what was shown: the
   * blocks up to the last one an event named, each text or thinking block
   * cut to the characters its events handed over. Before any block event
   * it is the whole snapshot (the reader saw the partial as it was).
   */
  cut(partial: AssistantMessage): AssistantMessage {
    const copy = snapshotMessage(partial);
    if (this.blocks === 0 || !Array.isArray(copy.content)) return copy;
    copy.content = copy.content.slice(0, this.blocks).map((block, index) => {
      const shown = this.shownLength.get(index);
      if (shown === undefined) return block;
      if (block?.type === "text" && typeof block.text === "string" && block.text.length > shown)
        return { ...block, text: block.text.slice(0, shown) };
      if (block?.type === "thinking" && typeof block.thinking === "string" && block.thinking.length > shown)
        return { ...block, thinking: block.thinking.slice(0, shown) };
      return block;
    });
    return copy;
  }
}
