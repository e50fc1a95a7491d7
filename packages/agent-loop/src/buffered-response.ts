import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { ResponseRead } from "./response-read.js";

/**
 * A response stream that can hand over the events it already holds without
 * a promise each (agent-core's relay streams can). `takeBuffered()` removes
 * and returns the next event that was pushed and not yet read, or
 * `undefined` when none is waiting; taking events this way and reading the
 * stream's async iterator give the same events in the same order. The
 * loop detects the method by its name, so any stream may offer it.
 */
export interface BufferedResponse extends AsyncIterable<AssistantMessageEvent> {
  takeBuffered(): AssistantMessageEvent | undefined;
}

/** Whether `response` offers {@link BufferedResponse.takeBuffered}. */
export function isBufferedResponse(response: AsyncIterable<AssistantMessageEvent>): response is BufferedResponse {
  return typeof (response as Partial<BufferedResponse>).takeBuffered === "function";
}

/**
 * Reads `response` into `read` as a `for await` loop that stops after the
 * terminal event would: each event is taken and its listeners' promise
 * awaited before the next; the iterator's `next()` is awaited only when no
 * event is buffered. Like `for await`, stopping early (after the terminal
 * event, or on a listener's failure) calls the iterator's `return()` and
 * awaits it; a failure of `next()` or the stream's end does not.
 */
export async function readBufferedResponse(response: BufferedResponse, read: ResponseRead): Promise<void> {
  const iterator = response[Symbol.asyncIterator]();
  let inNext = false;
  try {
    for (;;) {
      let event = response.takeBuffered();
      if (event === undefined) {
        inNext = true;
        const next = await iterator.next();
        if (next.done) return;
        event = next.value;
        inNext = false;
      }
      const pending = read.take(event);
      if (pending) {
        await pending;
        read.sinkError = false;
      }
      if (read.final) break;
    }
  } catch (error) {
    // As for a for-await body that throws: the iterator is released, and a failing return() does not hide the error.
    if (!inNext) await returnQuietly(iterator);
    throw error;
  }
  await iterator.return?.();
}

async function returnQuietly(iterator: AsyncIterator<AssistantMessageEvent>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The error that stopped the reading is the one that counts.
  }
}
