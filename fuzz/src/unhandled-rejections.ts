/**
 * Unhandled promise rejections seen while runs execute (invariant 6, no
 * leaks). Listeners left on a signal and real timers left running are
 * measured with the testing kit's `abortListenerCount` and
 * `probeRealTimers`.
 */

let unhandled: unknown[] | undefined;

/**
 * Starts counting unhandled rejections process-wide (once; later calls reuse
 * the counter). Returns a reader of everything seen so far.
 */
export function unhandledRejections(): { readonly seen: readonly unknown[] } {
  if (!unhandled) {
    const seen: unknown[] = [];
    unhandled = seen;
    process.on("unhandledRejection", (reason) => {
      seen.push(reason);
    });
  }
  const seen = unhandled;
  return {
    get seen() {
      return seen;
    },
  };
}
