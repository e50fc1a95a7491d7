import type { Usage } from "@mariozechner/pi-ai";

/**
 * A count or cost a provider reported, as a turn counts it: a finite number
 * above 0 as it is, anything else (`NaN`, `Infinity`, negative, missing, not
 * a number) 0. A provider's usage is untrusted.
 */
export function countedCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

const USAGE_COUNTS = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const;
const COST_PARTS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;

/**
 * A provider's usage as the turn counts it: `usage` itself when every count
 * and cost is a finite number of at least 0, else a copy with each
 * {@link countedCount}, so what a message carries into events and history
 * is JSON-safe and equals what the turn's report added for it.
 */
export function countedUsage(usage: unknown): Usage {
  const given = (typeof usage === "object" && usage !== null ? usage : {}) as Partial<Usage>;
  const cost = (typeof given.cost === "object" && given.cost !== null ? given.cost : {}) as Partial<Usage["cost"]>;
  const kept = (value: unknown) => value === 0 || countedCount(value) === value;
  if (
    usage === given &&
    given.cost === cost &&
    USAGE_COUNTS.every((key) => kept(given[key])) &&
    COST_PARTS.every((key) => kept(cost[key]))
  )
    return given as Usage;
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
