import type { StreamFn } from "../../src/call-stack/stream-fn.js";

/** Options as a stream function received them. */
export type ReceivedOptions = Parameters<StreamFn>[2] & Record<string, unknown>;

/**
 * Wraps `inner` (usually a scripted model's `streamFn`) to keep the options
 * object of every call as passed: its live `signal` and function-valued
 * fields (`fetch`, `onResponse`) included, which the scripted model's request
 * records leave out. A test then checks whether a layer above aborted the
 * signal it sent, or which function it passed down.
 */
export function receiveOptions(inner: StreamFn): { streamFn: StreamFn; received: Array<ReceivedOptions | undefined> } {
  const received: Array<ReceivedOptions | undefined> = [];
  const streamFn: StreamFn = (model, context, options) => {
    received.push(options as ReceivedOptions | undefined);
    return inner(model, context, options);
  };
  return { streamFn, received };
}
