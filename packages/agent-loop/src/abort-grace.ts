/** Marker returned by {@link settleOrAbandon} when the work was given up. */
export const ABANDONED: unique symbol = Symbol("turnkit.abandoned");

/**
 * Waits for `work`, but once `signal` has fired waits at most `graceMs` more
 * and then gives up with {@link ABANDONED}. Well-behaved work honours the
 * signal and settles first; this bounds the rest, so an abort always ends a
 * run. The timer and the abort listener are removed before returning; a
 * rejection of the abandoned work is handled (never unhandled).
 */
export async function settleOrAbandon<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  graceMs: number,
): Promise<T | typeof ABANDONED> {
  if (!signal) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<typeof ABANDONED>((resolve) => {
    const arm = () => {
      timer = setTimeout(() => resolve(ABANDONED), graceMs);
      timer.unref?.();
    };
    if (signal.aborted) arm();
    else {
      onAbort = arm;
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([work, abandoned]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
