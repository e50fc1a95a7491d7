import type { AssistantMessageEvent } from "@mariozechner/pi-ai";

/** What a call-stack layer does with the events of the stream below it. Must not throw. */
export interface EventSink {
  /** One event, in order. After a terminal `done` or `error` event, only `end` follows. */
  event(event: AssistantMessageEvent): void;
  /** The stream below has ended without a terminal event (after one, it may or may not be called: ignore it then). */
  end(): void;
  /** Reading the stream below threw (only a foreign stream can). */
  fail(error: unknown): void;
}
