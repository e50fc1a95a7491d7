import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { EARLY_CANCELS_KEPT } from "./defaults.js";
import { withScopedSignal } from "./scoped-signal.js";

/**
 * The server's cancellations of its own requests (`notifications/cancelled`)
 * that the host is serving: sampling and elicitation, which wait for a
 * model or a person.
 *
 * The SDK's client drops a cancellation whose `requestId` is falsy: `0`,
 * the id the SDK's server gives its first request of a session (a server
 * whose `elicitInput` timed out, or that no longer needs the answer, cancels
 * it so). The person went on seeing a question the server had withdrawn,
 * and the turn's model went on writing an answer nobody wanted, until the
 * call that asked ended. Here every cancellation the server sends reaches
 * the request it names (the SDK's own handling still runs as well: for a
 * request it knows it sends no answer; for one with id `0` the client
 * answers the server's cancelled request, which the protocol tells the
 * server to ignore).
 */
export class ServerRequestCancels {
  /** What is cancelled when the server cancels each request being served, by its id. */
  private readonly serving = new Map<RequestId, AbortController>();
  /**
   * The latest ids cancelled before their request was served: a request and
   * its cancellation read together (one chunk) reach this before the SDK
   * runs the request's handler. A few are kept, oldest dropped first.
   */
  private readonly cancelledEarly: RequestId[] = [];

  /**
   * Serves request `id` (the server's): `run` gets a signal that fires when
   * `signal` (the SDK's for the request) does, or when the server cancels
   * the request.
   */
  async serve<T>(id: RequestId, signal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const cancelled = new AbortController();
    const early = this.cancelledEarly.indexOf(id);
    if (early !== -1) {
      this.cancelledEarly.splice(early, 1);
      cancelled.abort("the server cancelled its request");
    }
    this.serving.set(id, cancelled);
    try {
      return await withScopedSignal([signal, cancelled.signal], run);
    } finally {
      if (this.serving.get(id) === cancelled) this.serving.delete(id);
    }
  }

  /** Reads one message from the server: a cancellation of a request being served cancels it. */
  read(message: JSONRPCMessage): void {
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown; reason?: unknown } };
    if (method !== "notifications/cancelled" || typeof params !== "object" || params === null) return;
    const { requestId, reason } = params;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const serving = this.serving.get(requestId);
    if (serving) {
      serving.abort(typeof reason === "string" ? reason : "the server cancelled its request");
      return;
    }
    this.cancelledEarly.push(requestId);
    if (this.cancelledEarly.length > EARLY_CANCELS_KEPT) this.cancelledEarly.shift();
  }
}
