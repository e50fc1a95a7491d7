/**
 * Structural mirrors of pi-ai's content blocks, usage and stop reasons.
 *
 * Each type here has the same shape as its pi-ai 0.73 counterpart, so a value
 * of one is assignable to the other in both directions (enforced by
 * `conformance/test/protocol-mirror.test.ts`). Fields typed `any` in pi-ai are
 * `unknown` here: assignability is unchanged, and hosts must narrow before use.
 */

/** A run of visible assistant or user text (pi-ai `TextContent`). */
export interface ProtocolTextContent {
  type: "text";
  text: string;
  /** Provider-opaque signature; pass it back unchanged, never interpret it. */
  textSignature?: string;
}

/** Model reasoning text (pi-ai `ThinkingContent`). Never shown to the model of another provider as-is. */
export interface ProtocolThinkingContent {
  type: "thinking";
  thinking: string;
  /** Provider-opaque signature (or the encrypted payload when `redacted`); pass back unchanged. */
  thinkingSignature?: string;
  /** True when a safety filter redacted the reasoning; `thinking` is then not the real text. */
  redacted?: boolean;
}

/** An inline image (pi-ai `ImageContent`): base64 `data` without a data-URL prefix. */
export interface ProtocolImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/**
 * A tool call requested by the model (pi-ai `ToolCall`). `arguments` are the
 * raw parsed arguments, not yet validated against the tool's schema; while a
 * response streams they may be incomplete.
 */
export interface ProtocolToolCall {
  type: "toolCall";
  /** Provider-assigned id; the matching tool-result message carries it as `toolCallId`. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Provider-opaque signature; pass back unchanged. */
  thoughtSignature?: string;
}

/** Cost in the model's currency units, split like {@link ProtocolUsage}'s token counts. */
export interface ProtocolUsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Token usage and cost of one assistant response (pi-ai `Usage`). Zero for synthetic responses. */
export interface ProtocolUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: ProtocolUsageCost;
}

/**
 * Why an assistant response ended (pi-ai `StopReason`).
 *
 * `stop` and `toolUse` are normal ends; `length` hit the token limit (its tool
 * calls are not executed, SPEC L11); `error` and `aborted` end the run and
 * such messages are never replayed to a provider.
 */
export type ProtocolStopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** The error part of a {@link ProtocolAssistantMessageDiagnostic}. Never contains credentials. */
export interface ProtocolDiagnosticError {
  name?: string;
  message: string;
  stack?: string;
  code?: string | number;
}

/** A diagnostic record pi-ai attaches to an assistant message (pi-ai `AssistantMessageDiagnostic`). */
export interface ProtocolAssistantMessageDiagnostic {
  type: string;
  timestamp: number;
  error?: ProtocolDiagnosticError;
  details?: Record<string, unknown>;
}
