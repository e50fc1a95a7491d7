import type { Usage } from "@mariozechner/pi-ai";

/**
 * A count or cost a provider reported, as a turn counts it: a finite number
 * above 0 as it is, anything else (`NaN`, `Infinity`, negative, missing, not
 * a number) 0. A provider's usage is untrusted.
 */
export function countedCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** A count the turn keeps as it is: a number from 0 up, finite (`NaN` fails the comparison). */
function isKept(value: unknown): boolean {
  return typeof value === "number" && value >= 0 && value !== Number.POSITIVE_INFINITY;
}

/** True when every count and cost of `usage` is kept as it is (see {@link countedCount}). */
function isCountedAlready(usage: unknown): usage is Usage {
  if (typeof usage !== "object" || usage === null) return false;
  const { input, output, cacheRead, cacheWrite, totalTokens, cost } = usage as Partial<Usage>;
  if (!(isKept(input) && isKept(output) && isKept(cacheRead) && isKept(cacheWrite) && isKept(totalTokens)))
    return false;
  if (typeof cost !== "object" || cost === null) return false;
  return (
    isKept(cost.input) && isKept(cost.output) && isKept(cost.cacheRead) && isKept(cost.cacheWrite) && isKept(cost.total)
  );
}

/**
 * A provider's usage as the turn counts it: `usage` itself when every count
 * and cost is a finite number of at least 0, else a copy with each
 * {@link countedCount}, so what a message carries into events and history
 * is JSON-safe and equals what the turn's report added for it. A usage
 * that cannot be read counts as all zeros. Never throws.
 */
export function countedUsage(usage: unknown): Usage {
  try {
    return countedReadable(usage);
  } catch {
    // A usage that cannot be read (a revoked proxy, a getter that throws) reports nothing.
    return countedReadable(undefined);
  }
}

function countedReadable(usage: unknown): Usage {
  if (isCountedAlready(usage)) return usage;
  const given = (typeof usage === "object" && usage !== null ? usage : {}) as Partial<Usage>;
  const cost = (typeof given.cost === "object" && given.cost !== null ? given.cost : {}) as Partial<Usage["cost"]>;
  return {
    input: countedCount(given.input),
    output: countedCount(given.output),
    cacheRead: countedCount(given.cacheRead),
    cacheWrite: countedCount(given.cacheWrite),
    totalTokens: countedCount(given.totalTokens),
    cost: {
      input: countedCount(cost.input),
      output: countedCount(cost.output),
      cacheRead: countedCount(cost.cacheRead),
      cacheWrite: countedCount(cost.cacheWrite),
      total: countedCount(cost.total),
    },
  };
}
