/**
 * Reads the doc comment of one declaration and decides whether it says
 * enough to count as a contract.
 */
import ts from "typescript";

/**
 * A doc comment with fewer words than this is trivially short: "The
 * options." or "Runs the turn." only repeat the name. Four words is the
 * least a sentence needs to say something the name does not ("Never throws;
 * returns undefined."). Words are whitespace-separated pieces holding a
 * letter or digit; `@param`, `@returns` and other tags do not count, only the
 * description before them.
 */
export const MIN_DOC_WORDS = 4;

/**
 * A member of a public type (a property, a method) needs a doc comment of
 * at least one word: a field's comment is often a short phrase ("Creation
 * time.") that says enough next to its type, so only a missing or empty
 * comment is listed.
 */
export const MIN_MEMBER_DOC_WORDS = 1;

/**
 * An id of an outside document, which a reader of this repository cannot
 * look up: `SPEC X3`, `behaviour L9` / `behaviours L4, L5`, a bare `L6d`,
 * `issue 12`. A contract says the behaviour in words instead.
 */
export const OUTSIDE_REFERENCE_PATTERN = /\b(?:SPEC\s+[A-Z]+\d*[a-z]?|L\d+[a-z]?|issue\s+#?\d+)\b/;

/** What a declaration's doc comment holds, if it has one. */
export interface DocComment {
  /** The description, tags left out, with whitespace collapsed (`""` for a comment of tags only). */
  text: string;
  /** How many words the description has. */
  words: number;
}

/**
 * The doc comment (`/** ... *\/`) closest above `declaration`, or undefined
 * when it has none. A variable's comment sits above its `const` statement; a
 * whole module's (an `export * as name`) is the first one in its file. Line
 * comments (`//`) and block comments with one star are not doc comments.
 */
export function readDocComment(declaration: ts.Node): DocComment | undefined {
  if (ts.isSourceFile(declaration)) return readModuleDocComment(declaration);
  const jsDoc = ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
  if (!jsDoc) return undefined;
  return describe(ts.getTextOfJSDocComment(jsDoc.comment) ?? "");
}

/** The first outside-document id in `comment` (see {@link OUTSIDE_REFERENCE_PATTERN}), or undefined when it has none. */
export function findOutsideReference(comment: DocComment): string | undefined {
  return OUTSIDE_REFERENCE_PATTERN.exec(comment.text)?.[0];
}

/** True when `comment` exists and has at least `minWords` words. */
export function isSufficient(comment: DocComment | undefined, minWords: number): boolean {
  return comment !== undefined && comment.words >= minWords;
}

function readModuleDocComment(file: ts.SourceFile): DocComment | undefined {
  const first = ts.getLeadingCommentRanges(file.text, 0)?.find((range) => file.text.startsWith("/**", range.pos));
  if (!first) return undefined;
  const body = file.text.slice(first.pos + 3, first.end - 2);
  const description = body
    .split("\n")
    .map((line) => line.replace(/^\s*\*\s?/, ""))
    .join("\n")
    .split(/^\s*@/m)[0]!;
  return describe(description);
}

function describe(text: string): DocComment {
  const collapsed = text.replace(/\s+/g, " ").trim();
  const words = collapsed.split(" ").filter((piece) => /[\p{L}\p{N}]/u.test(piece)).length;
  return { text: collapsed, words };
}
