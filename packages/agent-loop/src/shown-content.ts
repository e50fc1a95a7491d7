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
  /** Per content index of a text or thinking block: how many characters of it were shown (a hole: none noted). */
  private readonly shownLength: number[] = [];
  /** One past the highest content index an event named; 0 before any block event. */
  private blocks = 0;

  /** Forgets everything noted: a new response starts. */
  reset(): void {
    this.shownLength.length = 0;
    this.blocks = 0;
  }

  /** Notes that the reader was handed `event` (any event of the response, in order). */
  note(event: AssistantMessageEvent): void {
    switch (event.type) {
      case "text_start":
      case "thinking_start":
        this.noteLength(event.contentIndex, 0);
        return;
      case "text_delta":
      case "thinking_delta":
        if (typeof event.delta === "string") this.noteLength(event.contentIndex, event.delta.length, true);
        return;
      case "text_end":
      case "thinking_end":
        if (typeof event.content === "string") this.noteLength(event.contentIndex, event.content.length);
        return;
      case "toolcall_start":
      case "toolcall_delta":
      case "toolcall_end":
        this.noteLength(event.contentIndex, undefined);
        return;
      default:
        return;
    }
  }

  /** Block `index` was shown `length` characters (more, with `added`); `undefined`: a block that is not text. */
  private noteLength(index: unknown, length: number | undefined, added = false): void {
    // Providers number their blocks one after the other; an index that skips ahead or is no index names nothing.
    if (typeof index !== "number" || !(index >= 0 && index <= this.blocks) || !Number.isInteger(index)) return;
    if (index === this.blocks) this.blocks = index + 1;
    if (length !== undefined) this.shownLength[index] = added ? (this.shownLength[index] ?? 0) + length : length;
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
      const shown = this.shownLength[index];
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
