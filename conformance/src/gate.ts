import { deferred } from "@turnkit/agent-loop/testing";

/**
 * A promise the scenario opens by hand. Timing-dependent scenarios use gates
 * instead of sleeps, so both implementations see exactly the same order of
 * completions whatever their internal microtask counts.
 */
export interface Gate<T = void> {
  /** Settles when {@link Gate.open} is called; never rejects. */
  readonly promise: Promise<T>;
  /** Opens the gate; later calls are ignored. */
  open(value: T): void;
  /** True once opened. */
  readonly isOpen: boolean;
}

/** Creates a closed {@link Gate}. */
export function createGate<T = void>(): Gate<T> {
  const pending = deferred<T>();
  let isOpen = false;
  return {
    promise: pending.promise,
    open(value: T) {
      if (isOpen) return;
      isOpen = true;
      pending.resolve(value);
    },
    get isOpen() {
      return isOpen;
    },
  };
}

/**
 * Resolves when `signal` fires (at once if it already has). For tools that
 * wait until the run is aborted, as a well-behaved long tool would.
 */
export function whenAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
