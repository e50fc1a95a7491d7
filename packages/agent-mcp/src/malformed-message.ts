/**
 * True for what the SDK throws when bytes from the server do not form an
 * MCP message: invalid JSON (`SyntaxError`) or JSON that fails the
 * protocol's schema (zod's error, recognised by its `issues` list).
 */
export function isMalformedMessageError(error: unknown): boolean {
  if (error instanceof SyntaxError) return true;
  const issues = typeof error === "object" && error !== null ? (error as { issues?: unknown }).issues : undefined;
  return error instanceof Error && Array.isArray(issues);
}

/** The first schema issue (`content: expected array`) or the parser's message, on one line. */
export function describeMalformed(error: Error): string {
  const issues = (error as { issues?: { path?: PropertyKey[]; message?: string }[] }).issues;
  const first = Array.isArray(issues) ? issues[0] : undefined;
  if (first?.message) {
    const path = (first.path ?? []).map(String).join(".");
    return path ? `${path}: ${first.message}` : first.message;
  }
  return error.message.split("\n")[0]!;
}
