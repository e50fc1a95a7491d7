/**
 * The error every invariant checker throws: names the invariant (numbered as
 * in the fuzz README) so a fuzz failure says which promise was broken.
 */
export class InvariantViolation extends Error {
  constructor(
    readonly invariant: string,
    detail: string,
  ) {
    super(`invariant "${invariant}" violated: ${detail}`);
    this.name = "InvariantViolation";
  }
}

/** Short, printable description of a value for violation messages. */
export function describeValue(value: unknown, limit = 300): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
