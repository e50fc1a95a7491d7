import type { Context } from "hono";

/** Longest chat (session) id, in characters. */
const MAX_CHAT_ID_LENGTH = 200;

/** A `POST /chat` body the server can start a turn from. */
export interface ChatRequest {
  /** The chat's id: the session the turn runs in. */
  sessionId: string;
  /** The text of the last (user) message: the turn's prompt. */
  text: string;
  /** `regenerate-message`: answer the question of the latest answer again, in its place. */
  regenerate: boolean;
  /** With `regenerate`, the id of the answer to replace (a turn id); the latest when absent. */
  messageId?: string;
}

/** Why a `POST /chat` body was refused: a stable code, the field at fault (when one is), and what it must be. */
export interface ChatRequestProblem {
  code: "invalid_json" | "invalid_request";
  field?: string;
  message: string;
}

/**
 * The `POST /chat` body (the AI SDK's `{ id, messages, trigger }`, as
 * `DefaultChatTransport` and `TurnkitChatTransport` send it), checked: a
 * body that is not JSON is `invalid_json`; a missing or mistyped field is
 * `invalid_request` naming it (`id`, `messages`, `messages[2].parts[0].text`,
 * ...). Only the last message is read: it must be a user message with at
 * least one text part. Text and ids must be storable (Postgres text holds
 * no U+0000). Never throws; the body limit ran before.
 */
export async function readChatRequest(c: Context): Promise<ChatRequest | ChatRequestProblem> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch (error) {
    return { code: "invalid_json", message: `the body must be JSON (${(error as Error).message})` };
  }
  return checkChatRequest(body);
}

function checkChatRequest(body: unknown): ChatRequest | ChatRequestProblem {
  const invalid = (field: string, message: string): ChatRequestProblem => ({
    code: "invalid_request",
    field,
    message: `${field} ${message}`,
  });
  if (!isObject(body)) return { code: "invalid_request", message: "the body must be a JSON object" };
  const { id, messages, trigger, messageId } = body;
  if (typeof id !== "string" || id === "" || id.length > MAX_CHAT_ID_LENGTH || /\p{Cc}/u.test(id))
    return invalid("id", `must be the chat's id: 1 to ${MAX_CHAT_ID_LENGTH} characters, no control characters`);
  if (trigger !== undefined && trigger !== "submit-message" && trigger !== "regenerate-message")
    return invalid("trigger", 'must be "submit-message" or "regenerate-message"');
  if (messageId !== undefined && messageId !== null && typeof messageId !== "string")
    return invalid("messageId", "must be a message id (a string) when given");
  if (!Array.isArray(messages) || messages.length === 0)
    return invalid("messages", "must be a non-empty array of UI messages");
  const at = `messages[${messages.length - 1}]`;
  const last: unknown = messages[messages.length - 1];
  if (!isObject(last)) return invalid(at, "must be a UI message object");
  if (last.role !== "user") return invalid(`${at}.role`, 'must be "user": the last message is the one to answer');
  if (!Array.isArray(last.parts)) return invalid(`${at}.parts`, "must be an array of message parts");
  let text = "";
  let texts = 0;
  for (const [index, part] of last.parts.entries()) {
    if (!isObject(part) || typeof part.type !== "string")
      return invalid(`${at}.parts[${index}]`, "must be a message part with a string type");
    if (part.type !== "text") continue;
    if (typeof part.text !== "string") return invalid(`${at}.parts[${index}].text`, "must be a string");
    if (part.text.includes("\u0000")) return invalid(`${at}.parts[${index}].text`, "must not contain U+0000");
    text += part.text;
    texts++;
  }
  if (texts === 0 || text.trim() === "") return invalid(`${at}.parts`, "must have a text part with some text");
  return {
    sessionId: id,
    text,
    regenerate: trigger === "regenerate-message",
    ...(typeof messageId === "string" && { messageId }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
