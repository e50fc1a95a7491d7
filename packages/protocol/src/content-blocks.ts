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
  /** Block discriminant. */
  type: "text";
  /** The text itself. */
  text: string;
  /** Provider-opaque signature; pass it back unchanged, never interpret it. */
  textSignature?: string;
}

/** Model reasoning text (pi-ai `ThinkingContent`). Never shown to the model of another provider as-is. */
export interface ProtocolThinkingContent {
  /** Block discriminant. */
  type: "thinking";
  /** The reasoning text; not the real reasoning when `redacted`. */
  thinking: string;
  /** Provider-opaque signature (or the encrypted payload when `redacted`); pass back unchanged. */
  thinkingSignature?: string;
  /** True when a safety filter redacted the reasoning; `thinking` is then not the real text. */
  redacted?: boolean;
}

/** An inline image (pi-ai `ImageContent`): base64 `data` without a data-URL prefix. */
export interface ProtocolImageContent {
  /** Block discriminant. */
  type: "image";
  /** Base64 image bytes, without a `data:` URL prefix. */
  data: string;
  /** MIME type of the image, e.g. `image/png`. */
  mimeType: string;
  /**
   * Where the image came from, for people: a file name or a workspace-relative
   * path (the built-in `read` tool sets it). Optional, and never sent to a
   * model: providers read only `data` and `mimeType`. Turnkit names the image
   * with it when it replaces the image by a placeholder or a descriptor.
   * Not part of pi-ai's `ImageContent`, which tolerates it as an extra field.
   */
  fileName?: string;
}

/**
 * What runtime events carry instead of inline media (an image, or the video
 * or audio blocks some tools return): what it is and how big, never its
 * bytes. Events go to UIs and logs, where a megabyte of base64 per event does
 * harm; the data itself stays in the history the host stores.
 */
export interface ProtocolMediaDescriptor {
  /** Block discriminant. */
  type: "media";
  /** The `type` of the block it stands for: `image`, or e.g. `video` for tools that return other media. */
  mediaType: string;
  /** MIME type of the data, e.g. `image/png`; empty when the block named none. */
  mimeType: string;
  /** Size of the decoded data in bytes. */
  bytes: number;
  /** The block's `fileName`, when it had one. */
  fileName?: string;
}

/**
 * The one field of a tool call's `arguments` when the model sent arguments
 * that are not a JSON object (a cut-off JSON text, a number, `null`, a
 * list): events and history then carry `{ rawArguments: <what it sent> }`,
 * so `arguments` is always an object, and the call's result is an error
 * that names what was sent (the tool does not run).
 */
export const RAW_TOOL_ARGUMENTS_KEY = "rawArguments";

/**
 * A tool call requested by the model (pi-ai `ToolCall`). `arguments` are the
 * raw parsed arguments, not yet validated against the tool's schema; while a
 * response streams they may be incomplete. They are always a JSON object:
 * arguments the model sent that are not one are carried under
 * {@link RAW_TOOL_ARGUMENTS_KEY}.
 */
export interface ProtocolToolCall {
  /** Block discriminant. */
  type: "toolCall";
  /** Provider-assigned id; the matching tool-result message carries it as `toolCallId`. */
  id: string;
  /** Name of the tool the model called; it may name no bound tool. */
  name: string;
  /** Raw parsed arguments; not validated, possibly incomplete while streaming. */
  arguments: Record<string, unknown>;
  /** Provider-opaque signature; pass back unchanged. */
  thoughtSignature?: string;
}

/** Cost in the model's currency units, split like {@link ProtocolUsage}'s token counts. */
export interface ProtocolUsageCost {
  /** Cost of the uncached input tokens. */
  input: number;
  /** Cost of the output tokens. */
  output: number;
  /** Cost of the tokens read from the prompt cache. */
  cacheRead: number;
  /** Cost of the tokens written to the prompt cache. */
  cacheWrite: number;
  /** Sum of the four. */
  total: number;
}

/** Token usage and cost of one assistant response (pi-ai `Usage`). Zero for synthetic responses. */
export interface ProtocolUsage {
  /** Input tokens neither read from nor written to the prompt cache. */
  input: number;
  /** Output tokens, reasoning included. */
  output: number;
  /** Input tokens read from the prompt cache (hits from earlier requests). */
  cacheRead: number;
  /** Input tokens written to the prompt cache by this request. */
  cacheWrite: number;
  /** All tokens of the request and response: the sum of the four counts above, unless the provider reports its own total. */
  totalTokens: number;
  /** What those tokens cost, by the model's price table. */
  cost: ProtocolUsageCost;
}

/**
 * Why an assistant response ended (pi-ai `StopReason`).
 *
 * `stop` and `toolUse` are normal ends; `length` hit the token limit (its tool
 * calls are not executed, since their arguments may be cut off: each is
 * answered with an error result); `error` and `aborted` end the run and
 * such messages are never replayed to a provider.
 */
export type ProtocolStopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** The error part of a {@link ProtocolAssistantMessageDiagnostic}. Never contains credentials. */
export interface ProtocolDiagnosticError {
  /** The error's `name`, when it had one. */
  name?: string;
  /** The error's message (or the thrown value as text). */
  message: string;
  /** Stack trace, when the thrown value had one. */
  stack?: string;
  /** The error's own `code` (an errno string, an HTTP status, ...), when it had one. */
  code?: string | number;
}

/** A diagnostic record pi-ai attaches to an assistant message (pi-ai `AssistantMessageDiagnostic`). */
export interface ProtocolAssistantMessageDiagnostic {
  /** What kind of diagnostic; an open string chosen by pi-ai's providers. */
  type: string;
  /** When it was recorded, in milliseconds since the epoch. */
  timestamp: number;
  /** The error it records, if any. */
  error?: ProtocolDiagnosticError;
  /** Further provider-specific data. */
  details?: Record<string, unknown>;
}
