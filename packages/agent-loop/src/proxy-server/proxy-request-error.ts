import { assertOneOfArgument, assertStringArgument, readArgumentFields } from "../argument-checks.js";
import { hasBrand } from "../brand.js";
/** Stable codes of {@link ProxyRequestError}, each with the HTTP status the handler answers with. */
export const ProxyRequestErrorCode = {
  /** The method is not POST (405). */
  MethodNotAllowed: "method_not_allowed",
  /** The body is larger than the handler's `maxBodyBytes` (413). */
  BodyTooLarge: "body_too_large",
  /** The body stream failed while it was read (400). */
  UnreadableBody: "unreadable_body",
  /** The body is not JSON (400). */
  InvalidJson: "invalid_json",
  /** A field of the body is missing or has the wrong type; `field` names it (400). */
  InvalidField: "invalid_field",
} as const;

/** One of the {@link ProxyRequestErrorCode} strings. */
export type ProxyRequestErrorCode = (typeof ProxyRequestErrorCode)[keyof typeof ProxyRequestErrorCode];

const STATUS_BY_CODE: Record<ProxyRequestErrorCode, number> = {
  method_not_allowed: 405,
  body_too_large: 413,
  unreadable_body: 400,
  invalid_json: 400,
  invalid_field: 400,
};

const PROXY_REQUEST_ERROR_MARKER = Symbol.for("turnkit.agent-loop.ProxyRequestError");

/**
 * A proxy request the server refuses before any model is called. The
 * handler answers it with {@link ProxyRequestError.status} and the JSON body
 * `{ error, code, field? }` (pi's client shows `Proxy error: <error>`).
 * `isInstance` recognises it across copies of the package.
 */
export class ProxyRequestError extends Error {
  /** Which problem; one of {@link ProxyRequestErrorCode}. */
  readonly code: ProxyRequestErrorCode;
  /** The body field at fault, as a path (`"context.messages[2].role"`), for `invalid_field`. */
  readonly field: string | undefined;
  /** The HTTP status that answers this error. */
  readonly status: number;
  /** Brand `isInstance` checks. */
  readonly [PROXY_REQUEST_ERROR_MARKER] = true;

  /** `options`: a `code` of {@link ProxyRequestErrorCode}, a string `message`, an optional string `field` and `cause`, each read once; anything else is a `TypeError` naming it. */
  constructor(options: { code: ProxyRequestErrorCode; message: string; field?: string; cause?: unknown }) {
    const where = "ProxyRequestError";
    const { code, message, field, cause } = readArgumentFields(options, where, "options", [
      "code",
      "message",
      "field",
      "cause",
    ]);
    assertOneOfArgument(code, Object.values(ProxyRequestErrorCode), where, "options.code");
    assertStringArgument(message, where, "options.message");
    if (field !== undefined) assertStringArgument(field, where, "options.field");
    super(message, { cause });
    this.name = "ProxyRequestError";
    this.code = code;
    this.field = field;
    this.status = STATUS_BY_CODE[code];
  }

  /** True for a ProxyRequestError from any copy of the package. */
  static isInstance(value: unknown): value is ProxyRequestError {
    return hasBrand(value, PROXY_REQUEST_ERROR_MARKER);
  }
}

/** An `invalid_field` error for `field`, saying what was expected. */
export function invalidField(field: string, expected: string): ProxyRequestError {
  return new ProxyRequestError({
    code: ProxyRequestErrorCode.InvalidField,
    field,
    message: `Invalid proxy request: ${field} must be ${expected}`,
  });
}
