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

/** The method of the one JSON-RPC message a POST body holds, or `undefined` (no method, a batch, no JSON). */
export function requestMethod(body: unknown): string | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const message: unknown = JSON.parse(body);
    if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
    const { method } = message as { method?: unknown };
    return typeof method === "string" ? method : undefined;
  } catch {
    return undefined;
  }
}
