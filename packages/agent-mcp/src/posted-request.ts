/** The id of the one JSON-RPC request a POST body holds, or `undefined` (a notification, an answer, a batch). */
export function requestId(body: unknown): string | number | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const message: unknown = JSON.parse(body);
    if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
    const { id, method } = message as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number") ? id : undefined;
  } catch {
    return undefined;
  }
}
