/** JSON a server wrote, parsed (see {@link readServerJson}). */
export interface ServerJson {
  readonly value: unknown;
  /** Whether it held `NaN`, `Infinity` or `-Infinity`, read as null: the text is no JSON another reader takes. */
  readonly nonFinite: boolean;
}

/**
 * Parses JSON a server wrote. Text that `JSON.parse` refuses is read again
 * with `NaN`, `Infinity` and `-Infinity` outside strings as null: Python's
 * `json.dumps` writes them for a float that is no finite number (its
 * default, `allow_nan=True`) where JavaScript's `JSON.stringify` writes
 * null, and a Python client reads them. Throws `JSON.parse`'s error for
 * text that is no JSON either way. Only text `JSON.parse` refused is read
 * twice.
 */
export function readServerJson(text: string): ServerJson {
  try {
    return { value: JSON.parse(text), nonFinite: false };
  } catch (error) {
    const read = withNonFiniteAsNull(text);
    if (read === text) throw error;
    try {
      return { value: JSON.parse(read), nonFinite: true };
    } catch {
      throw error;
    }
  }
}

const NON_FINITE = ["-Infinity", "Infinity", "NaN"];

/** `text` with `NaN`, `Infinity` and `-Infinity` outside strings as `null`; `text` itself when it has none. */
function withNonFiniteAsNull(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      continue;
    }
    const token = NON_FINITE.find((candidate) => text.startsWith(candidate, index));
    if (token === undefined) continue;
    parts.push(text.slice(copied, index), "null");
    index += token.length - 1;
    copied = index + 1;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  return parts.join("");
}
