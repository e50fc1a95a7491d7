/**
 * Listening on a signal someone else owns. A host hands the same
 * `AbortSignal` (its shutdown signal, one request's signal) to any number
 * of runs, turns, requests and tools at once. If each added its own abort
 * listener, Node would warn of a leak once more than ten wait on it
 * (`MaxListenersExceededWarning`). So every Turnkit listener on such a
 * signal goes through {@link onAbort}: the signal gets one listener, which
 * calls the ones registered at the time, and which leaves the signal as soon
 * as the last of them stopped listening. Nothing is changed on the host's
 * signal (no `setMaxListeners`).
 */

/** The one listener a signal has of ours, and the listeners it calls. */
interface SharedListener {
  readonly call: () => void;
  readonly listeners: Set<() => void>;
}

/** The shared listener of each signal that has one; a signal nobody listens on has no entry. */
const sharedBySignal = new WeakMap<AbortSignal, SharedListener>();

/**
 * Calls `listener` once when `signal` fires, as
 * `signal.addEventListener("abort", listener, { once: true })` would (the
 * listeners of one signal in the order they were added), and returns the
 * function that stops listening (idempotent; once called, `listener` never
 * is). A signal that has fired already never calls it: check
 * `signal.aborted` first. However many listen, the signal holds one
 * listener of ours, removed when the last of them stopped or was called. A
 * listener that throws does not keep the others from being called; its
 * error is reported as an uncaught one, as an event listener's would be.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) return stopNothing;
  let shared = sharedBySignal.get(signal);
  if (!shared) {
    const listeners = new Set<() => void>();
    const call = () => callAll(signal, listeners, call);
    shared = { listeners, call };
    sharedBySignal.set(signal, shared);
    signal.addEventListener("abort", call);
  }
  // A listener of its own per registration: the same function registered twice is called twice, stopped one by one.
  const registration = () => listener();
  shared.listeners.add(registration);
  const { listeners, call } = shared;
  return () => {
    if (!listeners.delete(registration) || listeners.size > 0) return;
    if (sharedBySignal.get(signal)?.listeners === listeners) sharedBySignal.delete(signal);
    signal.removeEventListener("abort", call);
  };
}

function callAll(signal: AbortSignal, listeners: Set<() => void>, call: () => void): void {
  if (sharedBySignal.get(signal)?.listeners === listeners) sharedBySignal.delete(signal);
  signal.removeEventListener("abort", call);
  for (const listener of [...listeners]) {
    // Stopped by an earlier listener of this abort: not called, as with addEventListener.
    if (!listeners.delete(listener)) continue;
    try {
      listener();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

function stopNothing(): void {}
