import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** The stdio transport's report of a message longer than its limit, in the words of the SDK's `ReadBuffer` (`StdoutLines`). */
const STDIO_BUFFER_EXCEEDED = /^ReadBuffer exceeded maximum size of \d+ bytes$/;

/**
 * What the stdio transport may hold besides one message: its line reader
 * (`StdoutLines`, framing as the SDK's `ReadBuffer` does) checks its limit against the
 * bytes it buffered, the message read so far plus the
 * chunk just read from the pipe (at most 64 KiB on Linux), which may hold
 * other, whole messages. Its limit is set this much above
 * `maxMessageBytes`, so a message within the limit is never refused
 * because small ones came with it in one chunk.
 */
export const STDIO_CHUNK_ALLOWANCE_BYTES = 64 * 1024;

/**
 * True for the stdio transport's error (its line reader's) when the server wrote more than
 * `maxBufferSize` bytes without ending its line: the message was dropped,
 * the transport closes, and the bytes that follow are the rest of it.
 */
export function isStdioMessageTooLarge(error: unknown): boolean {
  return error instanceof Error && STDIO_BUFFER_EXCEEDED.test(error.message);
}

/**
 * A `fetch` for the Streamable HTTP client transport that reads at most
 * `maxBytes` of any one message the server sends: one event of an event
 * stream (the bytes up to its blank line), or the whole body of any other
 * answer (a JSON response). The SDK reads an answer whole before looking at
 * it, so without this a server answering hundreds of megabytes costs the
 * host that memory. A message that goes past the limit is not read further:
 * the response is cancelled, `onTooLarge()` is called once, and the body
 * fails with an error naming the limit. Answers other than a 200 pass
 * through.
 */
export function fetchBoundingMessages(maxBytes: number, onTooLarge: () => void, base: FetchLike): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.status !== 200 || response.body === null) return response;
    const eventStream = response.headers.get("content-type")?.includes("text/event-stream") ?? false;
    const counter = eventStream ? new EventSizeCounter() : new BodySizeCounter();
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (counter.largestAfter(value) <= maxBytes) return controller.enqueue(value);
        await reader.cancel().catch(() => {});
        onTooLarge();
        controller.error(new Error(`a message from the server is longer than maxMessageBytes (${maxBytes} bytes)`));
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Counts the bytes of a body that is one message. */
class BodySizeCounter {
  private bytes = 0;

  /** The size of the message so far, `chunk` included. */
  largestAfter(chunk: Uint8Array): number {
    this.bytes += chunk.length;
    return this.bytes;
  }
}

/** Counts the bytes of each event of an event stream; an event ends at a blank line (`\n\n` or `\r\n\r\n`). */
class EventSizeCounter {
  /** Bytes of the event being read. */
  private eventBytes = 0;
  /** Bytes of its current line so far, without the line feed. */
  private lineBytes = 0;
  /** The byte before the chunk being read, to tell a line holding only `\r`. */
  private previousByte = 0;

  /** The size of the largest event that `chunk` ended or continued. */
  largestAfter(chunk: Uint8Array): number {
    let largest = 0;
    let start = 0;
    for (let lf = chunk.indexOf(10); lf !== -1; lf = chunk.indexOf(10, start)) {
      const line = this.lineBytes + (lf - start);
      this.eventBytes += lf - start + 1;
      const before = lf > 0 ? chunk[lf - 1] : this.previousByte;
      if (line === 0 || (line === 1 && before === 13)) {
        largest = Math.max(largest, this.eventBytes);
        this.eventBytes = 0;
      }
      this.lineBytes = 0;
      start = lf + 1;
    }
    this.lineBytes += chunk.length - start;
    this.eventBytes += chunk.length - start;
    if (chunk.length > 0) this.previousByte = chunk[chunk.length - 1]!;
    return Math.max(largest, this.eventBytes);
  }
}
