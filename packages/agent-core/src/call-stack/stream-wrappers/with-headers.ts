import type { StreamFn } from "../stream-fn.js";

/**
 * Merges `headers` into every request's headers; on a name present
 * in both, the request's own value wins. Empty or absent `headers` return
 * `streamFn` unchanged, so a request never gains an empty `headers` object.
 */
export function withHeaders(streamFn: StreamFn, headers: Record<string, string> | undefined): StreamFn {
  if (headers === undefined || Object.keys(headers).length === 0) return streamFn;
  const fixed = { ...headers };
  return (model, context, options) =>
    streamFn(model, context, { ...options, headers: { ...fixed, ...options?.headers } });
}
