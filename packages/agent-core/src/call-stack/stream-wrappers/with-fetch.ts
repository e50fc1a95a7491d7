import { fillingStreamFn, type StreamFn, type StreamFnOptions } from "../stream-fn.js";

/** Stream options as seen by a stream function that accepts a custom `fetch`. */
export type StreamFnOptionsWithFetch = StreamFnOptions & {
  /** The `fetch` the stream function should use for its HTTP requests; a request's own wins over `withFetch`'s. */
  fetch?: typeof globalThis.fetch;
};

/**
 * Passes `fetch` as `options.fetch` to every request that does not carry its
 * own. Only stream functions that read `options.fetch` use it;
 * pi-ai 0.73's built-in providers (`streamSimple`) ignore it, since they talk
 * HTTP through their SDKs. `undefined` returns `streamFn` unchanged.
 */
export function withFetch(streamFn: StreamFn, fetch: typeof globalThis.fetch | undefined): StreamFn {
  if (fetch === undefined) return streamFn;
  return fillingStreamFn(streamFn, (options) => fillFetch(options, fetch));
}

/** The layer's rule, applied in place: `fetch` unless the request carries its own. */
export function fillFetch(options: StreamFnOptions, fetch: typeof globalThis.fetch): void {
  const request = options as StreamFnOptionsWithFetch;
  if (request.fetch === undefined) request.fetch = fetch;
}
