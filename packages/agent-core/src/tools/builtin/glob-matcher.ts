import picomatch from "picomatch/posix.js";

/** A compiled glob, as the `glob` tool and `grep`'s `glob` filter use it. */
export interface GlobMatcher {
  /** True when a `/`-separated path, relative to where the search starts, matches the whole pattern. */
  matches(relativePath: string): boolean;
  /**
   * False when no path below the directory `relativeDirectory` can match, so
   * a walk may skip it. Only a shortcut: true whenever it cannot tell.
   */
  mayMatchBelow(relativeDirectory: string): boolean;
}

/**
 * Compiles a glob with picomatch, with the shell syntax people type: `*`,
 * `?`, `**` (any number of directories), `[abc]`, `[a-z]`, `[!abc]`,
 * `[[:digit:]]`, braces `{a,b}` and `{1..3}`, extglobs `+(a|b)`, `!(x)`,
 * `@(a|b)`, `?(a)`, `*(a)`, and `\` to escape. A leading `./` is dropped.
 *
 * The pattern is matched against the whole relative path, so a pattern
 * without `/` matches names at the top level only (`**\/*.ts` searches every
 * folder). Names starting with a dot are matched like any other (`*` matches
 * `.env`), because the tools walk hidden files too. An unbalanced `{` or `[`
 * is an ordinary character, as in bash. A pattern starting with `!` matches
 * every path the rest does not.
 *
 * Throws an `Error` naming the pattern when it is empty or picomatch rejects it.
 */
export function compileGlob(pattern: string): GlobMatcher {
  const normalized = pattern.replace(/^(?:\.\/+)+/, "");
  let test: (path: string) => boolean;
  try {
    // `posix: true` is what makes picomatch read `[!abc]` as a negated class; without it `!` is a class member.
    test = picomatch(normalized, { dot: true, posix: true });
  } catch (error) {
    throw new Error(`Invalid glob pattern ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
  const fixedDirectories = fixedLeadingDirectories(normalized);
  const maxDepth = segmentCountWithoutGlobstar(normalized);
  return {
    matches: (relativePath) => test(relativePath),
    mayMatchBelow(relativeDirectory) {
      const parts = relativeDirectory.split("/");
      if (parts.length >= maxDepth) return false;
      for (let i = 0; i < parts.length && i < fixedDirectories.length; i++)
        if (parts[i] !== fixedDirectories[i]) return false;
      return true;
    },
  };
}

/** The literal folders a pattern starts with (`src/lib` of `src/lib/*.ts`); none when escapes or a negation make that unsafe to tell. */
function fixedLeadingDirectories(pattern: string): string[] {
  if (pattern.includes("\\") || pattern.startsWith("!")) return [];
  const { base, isGlob } = picomatch.scan(pattern);
  const parts = base === "" ? [] : base.split("/");
  // Without a glob character the last part is the file name itself.
  if (!isGlob) parts.pop();
  return parts;
}

/** How many path segments every match has, when the pattern fixes that (no `**`, braces or extglobs); otherwise infinity. */
function segmentCountWithoutGlobstar(pattern: string): number {
  if (pattern.startsWith("!") || /\*\*|[{(]/.test(pattern)) return Number.POSITIVE_INFINITY;
  return pattern.split("/").length;
}
