/**
 * How long a provider asked us to wait before the next request, read from
 * response headers or from the error text. Both readers return milliseconds,
 * never negative, and `undefined` when there is no usable hint; neither
 * throws. The wait is not capped here: the retry policy caps it.
 */

/**
 * `retry-after-ms` (milliseconds, a non-standard header OpenAI and Azure
 * send), else `retry-after` (whole or fractional seconds, or an HTTP date,
 * RFC 9110 §10.2.3), from a `Headers` object or a plain record whose keys may
 * be in any case. An HTTP date is measured from `now()` (wall-clock
 * milliseconds, default `Date.now`); a date in the past is a wait of 0.
 */
export function retryAfterFromHeaders(headers: unknown, now: () => number = Date.now): number | undefined {
  const read = headerReader(headers);
  if (!read) return undefined;
  const ms = read("retry-after-ms");
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Math.round(Number(ms)));
  const value = read("retry-after");
  if (value === undefined || value.trim() === "") return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Math.round(Number(value) * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/**
 * A wait hint in error text, as providers write it: `retry-after-ms: 1200`,
 * `retry-after: 3`, Google's `"retryDelay": "20s"`, OpenAI's
 * `Please try again in 1.5s` / `in 20ms`, `retry after 20 seconds`,
 * Gemini's `Please retry in 58.2s`.
 */
export function parseRetryAfterText(text: string): number | undefined {
  const ms = /retry[-_ ]after[-_ ]ms["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)/i.exec(text);
  if (ms) return Math.round(Number(ms[1]));
  const seconds = /retry[-_ ]after["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)/i.exec(text);
  if (seconds) return Math.round(Number(seconds[1]) * 1000);
  const google = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/i.exec(text);
  if (google) return Math.round(Number(google[1]) * 1000);
  const phrase =
    /(?:try again|retry)(?: after| in)\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b/i.exec(
      text,
    );
  if (phrase) {
    const unit = phrase[2]!.toLowerCase();
    const factor = unit.startsWith("ms") || unit.startsWith("milli") ? 1 : unit.startsWith("m") ? 60_000 : 1000;
    return Math.round(Number(phrase[1]) * factor);
  }
  return undefined;
}

function headerReader(headers: unknown): ((name: string) => string | undefined) | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const record = headers as Record<string, unknown>;
  if (typeof record.get === "function") {
    const get = record.get as (name: string) => unknown;
    return (name) => {
      const value = get.call(headers, name);
      return typeof value === "string" ? value : undefined;
    };
  }
  return (name) => {
    for (const [key, value] of Object.entries(record)) {
      if (key.toLowerCase() === name)
        return Array.isArray(value) ? String(value[0]) : value == null ? undefined : String(value);
    }
    return undefined;
  };
}
