import type {
  ProtocolAssistantMessageDiagnostic,
  ProtocolImageContent,
  ProtocolStopReason,
  ProtocolTextContent,
  ProtocolThinkingContent,
  ProtocolToolCall,
  ProtocolUsage,
} from "./content-blocks.js";
import { readingUntrusted } from "./unreadable-values.js";

/** A user message (pi-ai `UserMessage`). `timestamp` is milliseconds since the epoch. */
export interface ProtocolUserMessage {
  /** Message discriminant. */
  role: "user";
  /** Plain text, or text and image blocks. */
  content: string | (ProtocolTextContent | ProtocolImageContent)[];
  /** Creation time. */
  timestamp: number;
}

/**
 * An assistant response (pi-ai `AssistantMessage`), final or partial.
 *
 * A message with `stopReason` `error` or `aborted` carries `errorMessage`,
 * may hold unanswered partial tool calls, and is never sent to a provider
 * again. `api` and `provider` are open strings.
 */
export interface ProtocolAssistantMessage {
  /** Message discriminant. */
  role: "assistant";
  /** Text, thinking and tool-call blocks, in the order the model produced them. */
  content: (ProtocolTextContent | ProtocolThinkingContent | ProtocolToolCall)[];
  /** The provider API the request used (e.g. `anthropic-messages`). */
  api: string;
  /** The provider the request went to (e.g. `anthropic`). */
  provider: string;
  /** The model id the request named. */
  model: string;
  /** The model id the provider reported, when it differs. */
  responseModel?: string;
  /** The provider's id of the response, when it reported one. */
  responseId?: string;
  /** Diagnostics pi-ai recorded while producing the response. */
  diagnostics?: ProtocolAssistantMessageDiagnostic[];
  /** Token usage and cost; zero for synthetic responses. */
  usage: ProtocolUsage;
  /** Why the response ended. */
  stopReason: ProtocolStopReason;
  /** Why it failed; present when `stopReason` is `error` or `aborted`. */
  errorMessage?: string;
  /** Creation time, in milliseconds since the epoch. */
  timestamp: number;
}

/**
 * The result of one tool call (pi-ai `ToolResultMessage`). Every tool call
 * of a completed assistant message has exactly one, with the same
 * `toolCallId`; failures are results with `isError: true`, never missing.
 */
export interface ProtocolToolResultMessage<TDetails = unknown> {
  /** Message discriminant. */
  role: "toolResult";
  /** Id of the tool call this answers. */
  toolCallId: string;
  /** The name the model called. */
  toolName: string;
  /** What the model sees. */
  content: (ProtocolTextContent | ProtocolImageContent)[];
  /** Structured data for logs and UI; never sent to the model. */
  details?: TDetails;
  /** True for a failed call; `content` then says why. */
  isError: boolean;
  /** Creation time, in milliseconds since the epoch. */
  timestamp: number;
}

/** A message a provider understands (pi-ai `Message`). */
export type ProtocolLlmMessage = ProtocolUserMessage | ProtocolAssistantMessage | ProtocolToolResultMessage;

/**
 * The minimum every host-defined (custom) transcript message has: a `role`
 * that is none of `user`, `assistant`, `toolResult`. Custom messages are never
 * sent to a provider as they are; the host's conversion drops or translates
 * them. Interfaces and type literals with any further fields satisfy it.
 */
export interface ProtocolCustomMessage {
  /** The host's role name; never `user`, `assistant` or `toolResult`. */
  role: string;
}

/**
 * A transcript entry: mirror of the loop's `AgentMessage`.
 *
 * The loop extends `AgentMessage` by declaration merging
 * (`CustomAgentMessages`); the mirror takes the same extension as a type
 * parameter instead, so `ProtocolMessage<MyNotice>` matches a loop whose
 * `CustomAgentMessages` holds `MyNotice`. The default (`never`) is exactly
 * the provider messages, so a `switch` on `role` narrows fully.
 */
export type ProtocolMessage<TCustom extends ProtocolCustomMessage = never> = ProtocolLlmMessage | TCustom;

/**
 * A transcript entry whose custom messages are not known statically: any
 * provider message or any `{ role: string }` host message. Used where the
 * protocol carries a host's transcript without knowing its message types
 * (`message.persisted`). Narrow with {@link isProtocolLlmMessage} before
 * switching on `role`.
 */
export type ProtocolAnyMessage = ProtocolMessage<ProtocolCustomMessage>;

/** The roles of {@link ProtocolLlmMessage}; a custom message never uses one of them. */
export const LLM_MESSAGE_ROLES: readonly ProtocolLlmMessage["role"][] = Object.freeze([
  "user",
  "assistant",
  "toolResult",
]);

/**
 * True when `message` is a provider message (by its `role` alone; it does not
 * validate the other fields, use `isProtocolAgentEvent` or the message schemas
 * for untrusted data). Relies on the contract that custom roles differ from
 * the provider roles. False for anything that is no object.
 */
export function isProtocolLlmMessage(message: ProtocolCustomMessage): message is ProtocolLlmMessage {
  if (typeof message !== "object" || message === null) return false;
  return readingUntrusted(() => (LLM_MESSAGE_ROLES as readonly string[]).includes(message.role), false);
}
