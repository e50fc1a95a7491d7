import { assertOptionsObject, readFields, shownType } from "./argument-checks.js";

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

  /**
   * `options`: a `code` of {@link UIStreamErrorCode}, a string `message`, an
   * optional number `status` and `cause`, each read once; anything else is
   * a `TypeError` naming it.
   */
  constructor(options: { code: UIStreamErrorCode; message: string; status?: number; cause?: unknown }) {
    const where = "UIStreamError";
    assertOptionsObject(where, "options", options);
    const { code, message, status, cause } = readFields(where, "options", options, [
      "code",
      "message",
      "status",
      "cause",
    ]);
    if (typeof code !== "string" || !(Object.values(UIStreamErrorCode) as string[]).includes(code))
      throw new TypeError(
        `${where}: options.code must be one of ${Object.values(UIStreamErrorCode).join(", ")}, got ${shownValue(code)}`,
      );
    if (typeof message !== "string")
      throw new TypeError(`${where}: options.message must be a string, got ${shownValue(message)}`);
    if (status !== undefined && typeof status !== "number")
      throw new TypeError(`${where}: options.status must be a number, got ${shownValue(status)}`);
    super(message, cause === undefined ? undefined : { cause });
    this.name = "UIStreamError";
    this.code = code as UIStreamErrorCode;
    this.status = status;
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

/** A string as itself (quoted), anything else by its type: for a refused argument. */
function shownValue(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : shownType(value);
}
