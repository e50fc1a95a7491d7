import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { sleep, systemClock } from "@turnkit/agent-core/internal";
import { EMPTY_STREAM_REOPEN_MS } from "./defaults.js";

/**
 * A `fetch` for the Streamable HTTP client transport that opens an event
 * stream with a GET (the session's own stream, or one resumed) no sooner
 * than `EMPTY_STREAM_REOPEN_MS` after the previous GET began, when that
 * GET's stream ended without a message or the GET was refused with a
 * status (but 401).
 *
 * The SDK's client opens the session's stream again whenever it ends,
 * after the server's `retry` interval (a second without one), for the
 * session's life. A server that ends that stream at once, and asks for a
 * `retry` of 0 (or a few milliseconds), had the client send GETs in a busy
 * loop, some two hundred a second, spending the host's thread and the
 * network until dispose. A stream that brought a message is opened again
 * as the server asks.
 */
export function fetchPacingEmptyStreams(base: FetchLike): FetchLike {
  /** When the next GET may begin. */
  let notBefore = 0;
  return async (url, init) => {
    if (init?.method !== "GET") return base(url, init);
    const wait = notBefore - Date.now();
    if (wait > 0) await sleep(wait, systemClock, init.signal ?? undefined);
    const began = Date.now();
    const response = await base(url, init);
    // A GET refused (the session is gone, a gateway failing): the SDK's client asks again after the server's
    // `retry` interval, a few milliseconds; no sooner than a second here. Not after a 401, which it asks again with
    // the tokens it then gets.
    if (response.status !== 200 || response.body === null) {
      if (response.status !== 401) notBefore = began + EMPTY_STREAM_REOPEN_MS;
      return response;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let brought = false;
    /** The end of the text read so far, in which a `data:` line may have begun. */
    let tail = "";
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          notBefore = brought ? 0 : began + EMPTY_STREAM_REOPEN_MS;
          return controller.close();
        }
        if (!brought) {
          const text = tail + decoder.decode(value, { stream: true });
          brought = /(?:^|\n)data: ?[^\s]/.test(text);
          tail = text.slice(-16);
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
