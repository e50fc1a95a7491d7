/** A regular expression searched line by line, as `grep` does. */
export interface LineSearch {
  /** The expression a single line is tested with. */
  line: RegExp;
  /**
   * False only when no line of `text` can match, so the caller can skip
   * splitting it: one pass of the engine over the whole text instead of one
   * per line. True whenever that cannot be told safely.
   */
  mayMatchIn(text: string): boolean;
}

/**
 * Compiles `pattern` (JavaScript syntax) for a line-by-line search. Throws
 * an `Error` naming the pattern when it is not a valid expression.
 *
 * The whole-text check uses the same expression with the `m` flag, so `^`
 * and `$` still mean line start and end. It is skipped, and every line
 * tested, where a whole-text pass could miss a line that matches alone: a
 * negative lookaround (it sees the neighbouring lines) or a `\r` in the
 * text (`$` does not match before it, while lines are split on `\r\n`).
 */
export function compileLineSearch(pattern: string, ignoreCase: boolean): LineSearch {
  const flags = ignoreCase ? "i" : "";
  let line: RegExp;
  try {
    line = new RegExp(pattern, flags);
  } catch (error) {
    throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
  if (/\(\?<?!/.test(pattern)) return { line, mayMatchIn: () => true };
  const whole = new RegExp(pattern, `${flags}m`);
  return { line, mayMatchIn: (text) => text.includes("\r") || whole.test(text) };
}
