import type { AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream } from "@mariozechner/pi-ai";
import type { ProxyAssistantMessageEvent } from "../proxy/proxy-protocol.js";
import { emptyUsage } from "../synthetic-messages.js";
import { createProxyEventEncoder, sseFrame, terminalEventFor } from "./proxy-event-encoder.js";

/** What {@link proxyResponseBody} relays. */
export interface ProxyResponseBodyInput {
  /** Starts the upstream request; may throw or reject (reported as an `error` event). */
  open: () => AssistantMessageEventStream | Promise<AssistantMessageEventStream>;
  /** Aborted when the client goes away (the body is cancelled); the upstream request must listen to it. */
  upstream: AbortController;
  /** Told about an upstream failure that is not itself an event (a throw, a rejection). */
  onUpstreamError: (error: unknown) => void;
}

/** The message of a stream that ends without `done` or `error` and without a settled `result()`. */
const UPSTREAM_ENDED_WITHOUT_TERMINAL = "The model stream ended without a final message";

function failure(message: string): ProxyAssistantMessageEvent {
  return { type: "error", reason: "error", errorMessage: message, usage: emptyUsage() };
}

/** The settled result of `stream`, or `undefined` if it has not settled by the next macrotask. */
async function settledResult(stream: AssistantMessageEventStream): Promise<AssistantMessage | undefined> {
  const nextMacrotask = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 0));
  return Promise.race([stream.result(), nextMacrotask]);
}

/**
 * The SSE body of a proxy response: each upstream event as a `data:` frame,
 * read from upstream only as fast as the client reads (one event per pull),
 * ending after the first `done` or `error`. Upstream failures become the
 * wire `error` event: a stream function that throws or rejects, a stream
 * that ends without a terminal event (its settled `result()` is used if
 * there is one). Cancelling the body (the client disconnected) aborts
 * `upstream`; nothing more is read after that.
 */
export function proxyResponseBody(input: ProxyResponseBodyInput): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const encode = createProxyEventEncoder();
  let upstream: AssistantMessageEventStream | undefined;
  let events: AsyncIterator<AssistantMessageEvent> | undefined;
  let cancelled = false;

  const finish = (controller: ReadableStreamDefaultController<Uint8Array>, event: ProxyAssistantMessageEvent) => {
    if (cancelled) return;
    controller.enqueue(encoder.encode(sseFrame(event)));
    controller.close();
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!upstream) {
          upstream = await input.open();
          events = upstream[Symbol.asyncIterator]();
        }
        const next = await events!.next();
        if (cancelled) return;
        if (next.done) {
          const result = await settledResult(upstream);
          finish(controller, result ? terminalEventFor(result) : failure(UPSTREAM_ENDED_WITHOUT_TERMINAL));
          return;
        }
        for (const event of encode(next.value)) {
          if (event.type === "done" || event.type === "error") return finish(controller, event);
          controller.enqueue(encoder.encode(sseFrame(event)));
        }
      } catch (error) {
        if (cancelled) return;
        input.onUpstreamError(error);
        finish(controller, failure(error instanceof Error ? error.message : String(error)));
      }
    },
    cancel() {
      cancelled = true;
      input.upstream.abort();
    },
  });
}
