/**
 * Generated hooks and host callbacks answer from a list of decisions, one
 * per call, in call order.
 */

/** Returns the next decision of `list` on each call; past its end (or without a list), `fallback`. */
export function decisionSequence<T>(list: readonly T[] | undefined, fallback: T): () => T {
  let next = 0;
  return () => (list && next < list.length ? list[next++]! : fallback);
}
