/**
 * Payload of an `action.required` of kind `tool_approval`: one tool call
 * waits for a person's approval before it runs. Answered with a
 * {@link ToolApprovalAnswer}.
 */
export interface ToolApprovalRequiredPayload {
  /** Names this request within its turn; the answer must carry it. */
  requestId: string;
  /** What is asked: approval of one tool call. */
  kind: "tool_approval";
  /** The call waiting for approval. */
  toolCallId: string;
  /** The tool it calls. */
  toolName: string;
  /** Its arguments, as the model sent them. */
  arguments: Record<string, unknown>;
  /** Host id of the assistant message that made the call, when known. */
  messageId?: string;
  /** Why approval is needed (a tool flag, a hook's reason), for the person asked. */
  reason?: string;
  /** How long the turn waits for an answer, in ms, before the call is blocked. */
  timeoutMs?: number;
}

/**
 * Payload of an `action.required` of kind `elicitation`: code running in
 * the turn (an MCP server, through the tool call it is serving) asks a
 * person for input. `requestedSchema` is the JSON schema of the expected
 * answer (a flat object of strings, numbers, booleans and enums, as MCP
 * defines it). Answered with an {@link ElicitationAnswer}.
 */
export interface ElicitationRequiredPayload {
  /** Names this request within its turn; the answer must carry it. */
  requestId: string;
  /** What is asked: input from a person. */
  kind: "elicitation";
  /** What the person is asked, as the asker wrote it. */
  message: string;
  /** JSON schema of the content an `accept` answer carries. */
  requestedSchema: Record<string, unknown>;
  /** Who asks: the MCP server's id in the host's configuration. */
  serverName: string;
  /** The tool call during which the question was asked, when it came from one. */
  toolCallId?: string;
  /** Host id of the assistant message that made that call, when known. */
  messageId?: string;
  /** How long the turn waits for an answer, in ms, before the question is given up. */
  timeoutMs?: number;
}

/** Payload of `action.required`: the turn waits for a person; `kind` says what is asked. */
export type ActionRequiredPayload = ToolApprovalRequiredPayload | ElicitationRequiredPayload;

/** What an `action.required` asks: `tool_approval` or `elicitation`. */
export type ActionRequiredKind = ActionRequiredPayload["kind"];

/** A person's answer to a `tool_approval`: approved, or denied with an optional reason the model sees. */
export type ToolApprovalAnswer = { approved: true } | { approved: false; reason?: string };

/**
 * A person's answer to an `elicitation`, as MCP defines it: `accept` with
 * the content they entered (matching the requested schema), `decline` (they
 * said no), or `cancel` (they dismissed the question without choosing).
 */
export type ElicitationAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

/** The answer type of each {@link ActionRequiredKind}. */
export interface ActionAnswerMap {
  /** Approve or deny one tool call. */
  tool_approval: ToolApprovalAnswer;
  /** Accept with content, decline or cancel. */
  elicitation: ElicitationAnswer;
}

/** The answer to an `action.required` of kind `K` (any kind by default). */
export type ActionAnswer<K extends ActionRequiredKind = ActionRequiredKind> = ActionAnswerMap[K];
