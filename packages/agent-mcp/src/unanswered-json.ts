import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { requestId } from "./posted-request.js";

/**
 * A request whose HTTP response was JSON that did not answer it: it never
 * will be, since a JSON response is the whole answer to its POST. Thrown by
 * the `fetch` of {@link fetchRefusingUnansweredJson}; the request fails with
 * it, classified as the server's protocol error.
 */
export class UnansweredRequestError extends Error {
  constructor(
    /** What the response held instead, in words: `an answer to request 7 instead`, `no answer`. */
    readonly held: string,
  ) {
    super(`the server's JSON response held ${held}`);
    this.name = "UnansweredRequestError";
  }
}

/**
 * A `fetch` for the Streamable HTTP client transport that fails a request
 * at once when the server answers its POST with JSON that does not answer
 * it (an answer with an id it was never asked, notifications only, an
 * empty batch). The SDK hands such a response's messages on and keeps
 * waiting for the request's answer, which cannot come: a JSON response is
 * the whole answer to its POST, so the call would wait for `callTimeoutMs`
 * for nothing. The response's text is read here (at most `maxMessageBytes`,
 * by the `fetch` it wraps) and handed on unchanged; a body that is not
 * JSON is the SDK's to report, and event streams and other answers pass
 * through.
 */
export function fetchRefusingUnansweredJson(base: FetchLike): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const id = init?.method === "POST" ? requestId(init.body) : undefined;
    const json = response.headers.get("content-type")?.includes("application/json") ?? false;
    if (id === undefined || response.status !== 200 || !json) return response;
    const text = await response.text();
    const held = answerOf(text, id);
    if (held !== undefined) throw new UnansweredRequestError(held);
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * What a JSON response to request `id` holds instead of its answer, in
 * words; `undefined` when it answers `id`, or is no JSON (the SDK reports it).
 */
function answerOf(text: string, id: string | number): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const answers = messages.flatMap((message) => {
    if (typeof message !== "object" || message === null) return [];
    const answer = message as { id?: unknown; result?: unknown; error?: unknown };
    return "result" in answer || "error" in answer ? [answer.id] : [];
  });
  // Matched by number, as the SDK matches answers to its requests.
  if (answers.some((other) => Number(other) === Number(id))) return undefined;
  if (answers.length === 0) return "no answer";
  return `an answer to request ${answers.map((other) => JSON.stringify(other)).join(", ")} instead`;
}
