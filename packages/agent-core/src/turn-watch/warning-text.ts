import type { ErrorCode } from "@turnkit/protocol";

/** What a retried failure was, in a person's words. */
function failureWords(code: ErrorCode): string {
  switch (code) {
    case "rate_limited":
      return "rate limited";
    case "timeout":
      return "the model did not answer in time";
    case "network":
      return "the connection failed";
    case "upstream":
      return "the provider failed";
    default:
      return `the request failed (${code})`;
  }
}

/** `rate limited, retrying in 2.1 s` (with `auxiliary request: ` in front for a hook's own request). */
export function retryWarningText(family: "main" | "auxiliary", code: ErrorCode, delayMs: number): string {
  const prefix = family === "auxiliary" ? "auxiliary request: " : "";
  return `${prefix}${failureWords(code)}, retrying in ${(delayMs / 1000).toFixed(1)} s`;
}
