import { fillingStreamFn, type StreamFn, type StreamFnOptions } from "../stream-fn.js";

/**
 * Merges `headers` into every request's headers; on a name present
 * in both, the request's own value wins. Empty or absent `headers` return
 * `streamFn` unchanged, so a request never gains an empty `headers` object.
 */
export function withHeaders(streamFn: StreamFn, headers: Record<string, string> | undefined): StreamFn {
  if (headers === undefined || Object.keys(headers).length === 0) return streamFn;
  const fixed = { ...headers };
  return fillingStreamFn(streamFn, (options) => fillHeaders(options, fixed));
}

/** The layer's rule, applied in place: `headers` under the request's own (its value wins on a name in both). */
export function fillHeaders(options: StreamFnOptions, headers: Record<string, string>): void {
  options.headers = { ...headers, ...options.headers };
}
