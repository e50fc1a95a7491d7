import type { AssistantMessage, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";

// The copies of transcript messages a model gets (pi-ai's fields only, host fields left out; see
// `TranscriptProjection`), and the checks that tell whether a copy made earlier still stands for its message.

/** The fields a model's copy of a message has: `always` every copy has, `whenSet` only when the message sets them. */
export interface CopyFields {
  readonly fields: ReadonlyMap<string, boolean>;
  readonly always: number;
}

/** The fields of a copy from those it always has and those it has when set. */
function copyFields(always: readonly string[], whenSet: readonly string[]): CopyFields {
  return {
    fields: new Map([
      ...always.map((field) => [field, true] as const),
      ...whenSet.map((field) => [field, false] as const),
    ]),
    always: always.length,
  };
}

/** The fields of a user message's model copy (a hidden message's copy has them too, but is never the message itself). */
export const USER_FIELDS = copyFields(["role", "content", "timestamp"], []);
/** The fields of an assistant message's model copy. */
export const ASSISTANT_FIELDS = copyFields(
  ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"],
  ["responseId", "responseModel", "diagnostics", "errorMessage"],
);
/** The fields of a tool result's model copy. */
export const TOOL_RESULT_FIELDS = copyFields(
  ["role", "toolCallId", "toolName", "content", "isError", "timestamp"],
  ["details"],
);

/** Whether `message` is a plain object whose own fields are all set, all among `copy`'s, and include every field every copy has: a copy would equal it. */
export function hasOnlyFields(message: AgentMessage, copy: CopyFields): boolean {
  if (Object.getPrototypeOf(message) !== Object.prototype) return false;
  let always = 0;
  for (const field in message) {
    const inEveryCopy = copy.fields.get(field);
    if (inEveryCopy === undefined || (message as unknown as Record<string, unknown>)[field] === undefined) return false;
    if (inEveryCopy) always++;
  }
  return always === copy.always && Object.getOwnPropertySymbols(message).length === 0;
}

/** A user or hidden message as the model's user message, host fields left out. */
export function userCopy(message: AgentMessage & { role: "user" | "hidden" }): UserMessage {
  return { role: "user", content: message.content, timestamp: message.timestamp };
}

/** Whether `copy`, made from `message` earlier, still equals a copy made now. */
export function sameUser(copy: UserMessage, message: AgentMessage & { role: "user" | "hidden" }): boolean {
  return copy.content === message.content && copy.timestamp === message.timestamp;
}

/** An assistant message with pi-ai's fields only. */
export function assistantCopy(message: AssistantMessage): AssistantMessage {
  const {
    role,
    content,
    api,
    provider,
    model,
    usage,
    stopReason,
    timestamp,
    responseId,
    responseModel,
    diagnostics,
    errorMessage,
  } = message;
  const clean: AssistantMessage = { role, content, api, provider, model, usage, stopReason, timestamp };
  if (responseId !== undefined) clean.responseId = responseId;
  if (responseModel !== undefined) clean.responseModel = responseModel;
  if (diagnostics !== undefined) clean.diagnostics = diagnostics;
  if (errorMessage !== undefined) clean.errorMessage = errorMessage;
  return clean;
}

/** Whether `copy`, made from `message` earlier, still equals a copy made now. */
export function sameAssistant(copy: AssistantMessage, message: AssistantMessage): boolean {
  return (
    copy.content === message.content &&
    copy.stopReason === message.stopReason &&
    copy.usage === message.usage &&
    copy.timestamp === message.timestamp &&
    copy.api === message.api &&
    copy.provider === message.provider &&
    copy.model === message.model &&
    copy.responseId === message.responseId &&
    copy.responseModel === message.responseModel &&
    copy.diagnostics === message.diagnostics &&
    copy.errorMessage === message.errorMessage
  );
}

/** A tool result with pi-ai's fields only. */
export function toolResultCopy(message: ToolResultMessage): ToolResultMessage {
  const { role, toolCallId, toolName, content, details, isError, timestamp } = message;
  const clean: ToolResultMessage = { role, toolCallId, toolName, content, isError, timestamp };
  if (details !== undefined) clean.details = details;
  return clean;
}

/** Whether `copy`, made from `message` earlier, still equals a copy made now. */
export function sameToolResult(copy: ToolResultMessage, message: ToolResultMessage): boolean {
  return (
    copy.content === message.content &&
    copy.toolCallId === message.toolCallId &&
    copy.toolName === message.toolName &&
    copy.details === message.details &&
    copy.isError === message.isError &&
    copy.timestamp === message.timestamp
  );
}
