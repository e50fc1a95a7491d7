/** A promise with its resolve and reject functions, for tools, hooks and gates a test releases by hand. */
export interface Deferred<T = void> {
  /** Settles only through `resolve` or `reject`; never on its own. */
  promise: Promise<T>;
  /** Fulfils `promise` with `value`; does nothing once it has settled. */
  resolve(value: T): void;
  /** Rejects `promise` with `error`; does nothing once it has settled. */
  reject(error: unknown): void;
}

/** Creates a {@link Deferred}: `promise` settles only when the test calls `resolve` or `reject`. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
