import { errorText } from "@turnkit/agent-loop/internal";
import { type ConfigErrorCode, TurnkitConfigError, TurnkitError } from "./errors.js";

/**
 * Runs `check`, which reads what the host handed over at `where`. When
 * reading throws anything but a `TurnkitError` (a getter of the host's
 * that throws, a revoked proxy), that becomes a `TurnkitConfigError` with
 * `code` saying `<where> could not be read`, the error as its `cause`: the
 * host's own error text is kept, while the engine's text for a value it
 * cannot read (a `TypeError`) is said in words instead. A `TurnkitError`
 * passes through as it is.
 */
export function checkReadable<T>(where: string, code: ConfigErrorCode, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (TurnkitError.isInstance(error)) throw error;
    throw new TurnkitConfigError(code, `${where} could not be read: ${unreadableReason(error)}`, { cause: error });
  }
}

function unreadableReason(error: unknown): string {
  let engine = false;
  try {
    engine = error instanceof TypeError;
  } catch {
    engine = true;
  }
  return engine ? "a value in it cannot be read (a revoked proxy, or an object with no text)" : errorText(error);
}
