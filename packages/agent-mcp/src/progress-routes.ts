import { type Progress, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

/** A progress token given to one request, until {@link ProgressRoute.close}. */
export interface ProgressRoute {
  /**
   * The token to send as the request's `_meta.progressToken`: a number
   * below zero that {@link ProgressRoutes.sending} replaces with the
   * request's id as the request is sent.
   */
  readonly token: number;
  /** No more progress reaches the listener. */
  close(): void;
}

/**
 * The progress tokens of one connection's requests in flight, and the
 * listener each one's progress goes to. A progress notification is handed
 * to its listener as the transport reads it ({@link deliver}), so the
 * listener has it before any message read after it is handled.
 *
 * Why not the SDK's `onprogress`: the SDK's client handles a notification
 * a moment after reading it, but an answer at once, and forgets the
 * request's progress handler with its answer. A server that writes its
 * progress and its answer together (a fast tool reporting 100 % and
 * answering; over stdio in one write, over HTTP in one JSON batch) had its
 * progress dropped as progress for an unknown token.
 *
 * A request is sent with its own id as its token, as the SDK's client
 * sends it: a server that (against the protocol) reports progress under
 * the request's id rather than the token it was given still reaches the
 * right call, and never another one. A token the server writes as a string
 * of its digits (`"3"`) is read as the integer, as the SDK reads it.
 */
export class ProgressRoutes {
  private last = 0;
  private readonly listeners = new Map<number, (progress: Progress) => void>();
  /** Open routes whose request was not sent yet, by the token they were opened with. */
  private readonly unsent = new Map<number, { key: number; listener: (progress: Progress) => void }>();

  /** A new token whose progress goes to `listener` until the route is closed. */
  open(listener: (progress: Progress) => void): ProgressRoute {
    const token = -++this.last;
    const route = { key: token, listener };
    this.unsent.set(token, route);
    this.listeners.set(token, listener);
    return {
      token,
      close: () => {
        this.unsent.delete(token);
        this.listeners.delete(route.key);
      },
    };
  }

  /**
   * The message to send instead of `message`: a request carrying a token
   * of {@link open} carries its own id instead, and its progress is routed
   * by that id from now on. Anything else is sent as it is.
   */
  sending<T>(message: T): T {
    const request = message as { id?: unknown; params?: { _meta?: { progressToken?: unknown } } } | null;
    const token = request?.params?._meta?.progressToken;
    if (typeof token !== "number" || typeof request?.id !== "number") return message;
    const route = this.unsent.get(token);
    if (route === undefined) return message;
    this.unsent.delete(token);
    this.listeners.delete(token);
    route.key = request.id;
    this.listeners.set(route.key, route.listener);
    const { params } = request;
    return { ...message, params: { ...params, _meta: { ...params?._meta, progressToken: request.id } } };
  }

  /**
   * Hands `message` to its listener when it is a valid progress
   * notification for an open token, and says whether it did; anything
   * else (another message, progress for a token no request has open, one
   * the protocol's schema refuses) is the SDK's to handle.
   */
  deliver(message: unknown): boolean {
    if ((message as { method?: unknown } | null)?.method !== "notifications/progress") return false;
    const parsed = ProgressNotificationSchema.safeParse(message);
    if (!parsed.success) return false;
    const { progressToken, ...progress } = parsed.data.params;
    const listener = this.listeners.get(typeof progressToken === "string" ? Number(progressToken) : progressToken);
    if (listener === undefined) return false;
    try {
      listener(progress);
    } catch {
      // As the SDK's client treats a notification handler that throws: the message is handled.
    }
    return true;
  }
}
