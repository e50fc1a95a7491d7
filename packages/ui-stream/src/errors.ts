const UI_STREAM_ERROR_MARKER = Symbol.for("turnkit.ui-stream-error");

/** Stable codes of {@link UIStreamError}. */
export const UIStreamErrorCode = {
  /** The events do not start with the turn's first event (`session.status` `running`), or a value is not an event. */
  InvalidEvents: "invalid_events",
  /** An event's `seq` is not greater than the one before, or it belongs to another turn. */
  OutOfOrder: "out_of_order",
  /** The server answered a chat request with a non-2xx status; `status` has it. */
  HttpStatus: "http_status",
  /** The stream broke and every reconnect attempt failed too. */
  ReconnectFailed: "reconnect_failed",
} as const;

/** One of the {@link UIStreamErrorCode} strings. */
export type UIStreamErrorCode = (typeof UIStreamErrorCode)[keyof typeof UIStreamErrorCode];

/**
 * What `@turnkit/ui-stream` throws on purpose: events a mapper cannot turn
 * into a valid UI message stream, or a chat request the server refused.
 * `UIStreamError.isInstance(e)` recognises one across duplicated package
 * copies, where `instanceof` would not.
 */
export class UIStreamError extends Error {
  /** Stable code a caller can branch on. */
  readonly code: UIStreamErrorCode;
  /** The HTTP status, for `http_status`. */
  readonly status: number | undefined;
  readonly [UI_STREAM_ERROR_MARKER] = true;

  constructor(options: { code: UIStreamErrorCode; message: string; status?: number; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UIStreamError";
    this.code = options.code;
    this.status = options.status;
  }

  /** True for a UIStreamError from any copy of the package. */
  static isInstance(value: unknown): value is UIStreamError {
    if (typeof value !== "object" || value === null) return false;
    try {
      return (value as Record<symbol, unknown>)[UI_STREAM_ERROR_MARKER] === true;
    } catch {
      return false; // a value that cannot be read (a revoked proxy, a getter that throws) is none
    }
  }
}
