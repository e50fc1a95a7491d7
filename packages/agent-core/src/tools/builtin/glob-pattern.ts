/**
 * Compiles a glob pattern to a regular expression matched against a whole
 * `/`-separated relative path. Node 20 has no `fs.glob`, so this is the small
 * matcher the `glob` and `grep` tools share.
 *
 * Syntax: `*` (any characters except `/`), `?` (one character except `/`),
 * `**` as a whole segment (zero or more directories), `[abc]`, `[a-z]`,
 * `[!abc]` / `[^abc]`, `{a,b}` (nestable), `\` escapes the next character.
 * A pattern without `/` matches names at the top level only, as in every
 * shell: use `**\/*.ts` to search all directories. Dot files are matched
 * like any other. Throws an `Error` naming the problem for an unbalanced
 * `{` or `[`.
 */
export function globToRegExp(pattern: string): RegExp {
  if (pattern.length === 0) throw new Error("Empty glob pattern");
  const normalized = pattern.replace(/^\.\/+/, "");
  return new RegExp(`^${compile(normalized, 0, false).source}$`);
}

interface Compiled {
  source: string;
  end: number;
}

/** Compiles from `start` until the end, or (inside braces) until the matching `,` or `}`. */
function compile(pattern: string, start: number, inBraces: boolean): Compiled {
  let out = "";
  let i = start;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (inBraces && (ch === "," || ch === "}")) return { source: out, end: i };
    if (ch === "\\") {
      if (i + 1 < pattern.length) out += escapeRegExp(pattern[i + 1]!);
      i += 2;
      continue;
    }
    if (ch === "*") {
      if (pattern[i + 1] === "*") {
        const atSegmentStart = i === 0 || pattern[i - 1] === "/";
        const next = pattern[i + 2];
        if (atSegmentStart && next === "/") {
          out += "(?:[^/]*(?:/[^/]*)*/)?"; // `**/`: zero or more whole directories
          i += 3;
          continue;
        }
        if (atSegmentStart && next === undefined) {
          out += ".*"; // trailing `**`: everything below
          i += 2;
          continue;
        }
        // `**` inside a segment behaves like `*`.
        out += "[^/]*";
        i += 2;
        continue;
      }
      out += "[^/]*";
      i++;
      continue;
    }
    if (ch === "?") {
      out += "[^/]";
      i++;
      continue;
    }
    if (ch === "[") {
      const close = findClassEnd(pattern, i);
      if (close < 0) throw new Error(`Unclosed "[" in glob pattern ${JSON.stringify(pattern)}`);
      let body = pattern.slice(i + 1, close);
      let negate = false;
      if (body.startsWith("!") || body.startsWith("^")) {
        negate = true;
        body = body.slice(1);
      }
      const escaped = body.replace(/[\\\]^]/g, (c) => `\\${c}`);
      out += negate ? `(?!/)[^${escaped}]` : `[${escaped}]`;
      i = close + 1;
      continue;
    }
    if (ch === "{") {
      const alternatives: string[] = [];
      let j = i + 1;
      for (;;) {
        const part = compile(pattern, j, true);
        alternatives.push(part.source);
        if (part.end >= pattern.length) throw new Error(`Unclosed "{" in glob pattern ${JSON.stringify(pattern)}`);
        j = part.end + 1;
        if (pattern[part.end] === "}") break;
      }
      out += `(?:${alternatives.join("|")})`;
      i = j;
      continue;
    }
    out += escapeRegExp(ch);
    i++;
  }
  return { source: out, end: i };
}

function findClassEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === "!" || pattern[i] === "^") i++;
  if (pattern[i] === "]") i++; // a leading `]` is literal
  for (; i < pattern.length; i++) if (pattern[i] === "]") return i;
  return -1;
}

function escapeRegExp(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}
