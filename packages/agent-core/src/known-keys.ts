import { ConfigErrorCode, TurnkitConfigError } from "./errors.js";

/** Options of {@link assertKnownKeys}. */
export interface AssertKnownKeysOptions {
  /**
   * The value may carry members of its own besides `allowed` (an object of a
   * richer type, such as an MCP extension with its `status`): then only a
   * key that looks like a misspelt allowed key (`descripton`) throws.
   * Default `false`: every unknown key throws.
   */
  extensible?: boolean;
}

/**
 * Throws a `TurnkitConfigError` (`unknown_key`) when the plain object
 * `value` has an own enumerable key that is not in `allowed`, naming the key,
 * where it was found and the nearest valid key, e.g.
 * `unknown key 'overlay' in profile; did you mean 'overlays'?` (or, when no
 * valid key is close, the list of valid keys). Catches the typo that would
 * otherwise be ignored silently (`{ overlay: ... }` turning nothing off).
 *
 * Checks nothing for `undefined`, `null` or a non-object `value` (the
 * caller's own type checks report those); keys whose value is `undefined`
 * count like any other. Never changes `value`.
 */
export function assertKnownKeys(
  value: unknown,
  allowed: Iterable<string>,
  where: string,
  options: AssertKnownKeysOptions = {},
): void {
  if (typeof value !== "object" || value === null) return;
  const valid = [...allowed];
  const known = new Set(valid);
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    const nearest = nearestKey(key, valid);
    if (options.extensible && !nearest) continue;
    const hint = nearest ? `did you mean '${nearest}'?` : `valid keys: ${valid.map((name) => `'${name}'`).join(", ")}`;
    throw new TurnkitConfigError(ConfigErrorCode.UnknownKey, `unknown key '${key}' in ${where}; ${hint}`);
  }
}

/**
 * The valid key closest to `key` by edit distance (case-insensitive),
 * if it is close enough to be a likely typo: at most a third of the longer
 * name's length (and at least 2) edits, or one of them a prefix of the other.
 */
export function nearestKey(key: string, valid: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of valid) {
    const other = candidate.toLowerCase();
    const distance =
      other.startsWith(lower) || lower.startsWith(other)
        ? Math.abs(other.length - lower.length)
        : editDistance(lower, other);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.floor(Math.max(key.length, best.length) / 3));
  const prefix = best.toLowerCase().startsWith(lower) || lower.startsWith(best.toLowerCase());
  return prefix || bestDistance <= limit ? best : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
