import type { ErrorCode } from "@turnkit/protocol";

/**
 * What the host tells its user when a turn failed: one sentence per error
 * code, never the provider's raw text. New codes fall back to a generic
 * sentence with the code, so a newer Turnkit cannot break the host.
 */
export function failureMessage(code: ErrorCode): string {
  switch (code) {
    case "rate_limited":
    case "upstream":
      return "The model is busy right now. Please try again in a minute.";
    case "timeout":
      return "The model stopped responding.";
    case "network":
      return "The connection to the model was lost.";
    case "auth":
    case "quota":
      return "The model cannot be used with the configured account.";
    default:
      return `Something went wrong (${code}).`;
  }
}
