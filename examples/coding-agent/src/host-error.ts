/** Why the host refused to start. Stable: tests and wrappers branch on it. */
export type HostErrorCode = "usage" | "unknown_model" | "missing_api_key" | "session_file" | "workspace";

const HOST_ERROR_MARKER = Symbol.for("turnkit.example.codingAgent.hostError");

/**
 * A problem the user can fix (a bad flag, an unknown model, a missing key, an
 * unreadable session file). `main.ts` prints its message as one line on
 * stderr and exits non-zero, never with a stack trace; anything else that
 * escapes is a bug and is printed in full.
 */
export class HostError extends Error {
  readonly code: HostErrorCode;
  readonly [HOST_ERROR_MARKER] = true;

  constructor(code: HostErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HostError";
    this.code = code;
  }

  /** True for a HostError from any copy of this module. */
  static isInstance(value: unknown): value is HostError {
    return (
      typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[HOST_ERROR_MARKER] === true
    );
  }
}
