import {
  JSONRPCErrorResponseSchema,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describeMalformed } from "./malformed-message.js";

/**
 * What marks the error answer put in place of an answer the protocol's
 * schema refuses (the `data` of that JSON-RPC error, with `problem`; see
 * {@link malformedAnswer}), so that the failure is classified as the
 * server's malformed message.
 */
export const MALFORMED_ANSWER_MARKER = "turnkit.malformed-answer";

/** The problem of the answer replaced, when `data` is that of a malformed answer's replacement; else `undefined`. */
export function malformedAnswerProblem(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { marker, problem } = data as { marker?: unknown; problem?: unknown };
  return marker === MALFORMED_ANSWER_MARKER && typeof problem === "string" ? problem : undefined;
}

/**
 * The JSON-RPC error answer to request `id` that stands for its answer the
 * protocol's schema refused (`problem`): the request fails at once, as the
 * server's malformed message, instead of waiting for an answer that will
 * not come.
 */
export function malformedAnswer(id: string | number, problem: string) {
  const error = {
    code: -32603,
    message: "the server's answer is malformed",
    data: { marker: MALFORMED_ANSWER_MARKER, problem },
  };
  return { jsonrpc: "2.0" as const, id, error };
}

/**
 * The id of `message` when it is shaped as an answer (a `result` or an
 * `error`, no `method`) and its id is one the client's requests can have
 * (a string, or an integer JavaScript holds exactly); else `undefined`.
 */
export function answeredId(message: unknown): string | number | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message) || "method" in message)
    return undefined;
  if (!("result" in message) && !("error" in message)) return undefined;
  const { id } = message as { id?: unknown };
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : undefined;
}

/** Whether `message` is shaped as a request or notification (a `method`, no `result` or `error`). */
export function isShapedAsRequest(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  return "method" in message && !("result" in message) && !("error" in message);
}

/** Why `message` is no JSON-RPC message, told by the schema of what it claims to be (more exact than the union's). */
export function schemaProblem(message: unknown): string {
  const result = claimedSchema(message).safeParse(message);
  return result.success ? "not a JSON-RPC message" : describeMalformed(result.error);
}

function claimedSchema(message: unknown) {
  const claims = typeof message === "object" && message !== null ? message : {};
  if ("result" in claims) return JSONRPCResultResponseSchema;
  if ("error" in claims) return JSONRPCErrorResponseSchema;
  if ("method" in claims) return "id" in claims ? JSONRPCRequestSchema : JSONRPCNotificationSchema;
  return JSONRPCMessageSchema;
}
