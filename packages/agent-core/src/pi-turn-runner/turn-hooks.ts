import type { AssistantMessage, Context, ImageContent, Model, TextContent } from "@mariozechner/pi-ai";
import type { AgentMessage, AgentToolCall, AgentToolResult, StreamFn } from "@turnkit/agent-loop";

/** Identifies the turn a hook runs in. */
export interface HookTurnContext {
  /** The session of the turn, as the turn input gave it. */
  sessionId: string;
  /** The turn (one `runTurn()`) the hook runs in. */
  turnId: string;
}

/** A hook or an ordered list of hooks of the same kind (an extension runtime contributes lists). */
export type HookList<THook> = THook | readonly THook[];

// ---------------------------------------------------------------- before LLM

/** Why a model request is being prepared. `overflow` is the one resend after a context overflow. */
export type LlmCallReason = "request" | "overflow";

/** What a `beforeLlmCallHook` sees: the messages about to be projected for the model. */
export interface BeforeLlmCallEvent extends HookTurnContext {
  /** 0-based index of this model request within the turn. */
  requestIndex: number;
  /** `request` for each new request; `overflow` when the same request is prepared again after a context overflow (same `requestIndex`). */
  reason: LlmCallReason;
  /** The transcript as this request would send it (after earlier hooks' changes): a copy for this hook, so editing it changes nothing; return a decision instead. */
  messages: readonly AgentMessage[];
  /** The turn's model (for an auxiliary request). */
  model: Model<any>;
  /**
   * For the hook's own model requests (e.g. a compaction summary): the
   * turn's call stack (options, timeouts, transport retry, `llm.fallback`)
   * with a retry budget separate from the main requests, notices labelled
   * `auxiliary`; a model of the turn's provider also gets the turn's API key
   * (unless the call passes one) and `llm.headers`, a model of another
   * provider neither. Its requests never enter the transcript.
   */
  auxiliaryStreamFn: StreamFn;
  /**
   * Fires when the turn is aborted, or stopped because its event writer or
   * history hook failed. A hook still pending past the abort grace after
   * that is abandoned, and the model is not called.
   */
  signal: AbortSignal;
}

/**
 * A `beforeLlmCallHook` decision. Hooks run in order; each sees the
 * messages the previous ones produced.
 *
 * - `continue`: no change.
 * - `skip`: do not call the model for this request; the turn ends without a
 *   new answer (a host-only empty response is recorded, never sent later).
 * - `respond`: do not call the model; answer with `text`.
 * - `replaceRequestMessages`: send `messages` for this request only.
 * - `replaceMessages`: replace the history persistently (compaction); the
 *   host receives it as a `replaceMessages` history change (with
 *   `metadata`), and the turn reports it as a `debug.trace` (phase
 *   `history`) whose message is `description`: in words, what was replaced.
 * - `appendMessage`: append a hidden message (seen by the model, persisted).
 * - `abort`: do not call the model; the turn fails with code `hook`.
 *
 * A hook that throws or returns anything else fails the turn before the
 * request reaches the model (fail closed). `undefined`/`null` mean
 * `continue`.
 */
export type BeforeLlmCallDecision =
  | { type: "continue" }
  | { type: "skip" }
  | { type: "respond"; text: string }
  | { type: "replaceRequestMessages"; messages: AgentMessage[] }
  | { type: "replaceMessages"; messages: AgentMessage[]; metadata?: Record<string, unknown>; description?: string }
  | { type: "appendMessage"; message: HiddenContextInput }
  | { type: "abort"; reason: string };

/** Content for a hidden message: text, or text and image blocks. */
export interface HiddenContextInput {
  /** The message's content: plain text, or text and image blocks. */
  content: string | (TextContent | ImageContent)[];
  /** Who added it, for diagnostics (e.g. an extension id). */
  source?: string;
}

/** Runs before each model request, inside the loop's `transformContext`. */
export type BeforeLlmCallHook = (
  event: BeforeLlmCallEvent,
) => BeforeLlmCallDecision | null | undefined | Promise<BeforeLlmCallDecision | null | undefined>;

// ---------------------------------------------------------- on LLM prepared

/** The final request as sent to one model, without credentials. */
export interface LlmCallPreparedEvent extends HookTurnContext {
  /**
   * 0-based index of the request within the turn. A transport retry (the
   * same request to the same model) is not announced again; a fallback to
   * the next model of `llm.fallback`, or an overflow resend with shortened
   * messages, is, with the same index.
   */
  requestIndex: number;
  /** The model the request goes to (a fallback model once the request fell back). */
  model: Model<any>;
  /** System prompt, messages and tools handed to the stream function. Read only: the request shares these objects. */
  context: Context;
  /**
   * The stream options as actually sent, after every layer of the call
   * stack (`maxTokens` after the host cap, `cacheRetention`, `timeoutMs`,
   * `maxRetries: 0`, ...), without `apiKey`, `headers`, `signal` or functions.
   */
  options: Record<string, unknown>;
}

/**
 * Observes each request of the agent loop once per model it is sent to (the
 * turn's model, then each fallback model), at the innermost stream function
 * (where its options are final), right before it is sent; not again for a
 * transport retry, again for an overflow resend (its messages changed), and
 * not for a hook's own requests (`auxiliaryStreamFn`). Errors are ignored.
 */
export type OnLlmCallPreparedHook = (event: LlmCallPreparedEvent) => void | Promise<void>;

// ----------------------------------------------------------------- after LLM

/** What an `afterLlmCallHook` sees: one completed assistant response. */
export interface AfterLlmCallEvent extends HookTurnContext {
  /** 0-based index of the request that produced `message`. */
  requestIndex: number;
  /**
   * The completed response (never one that ended with `error` or
   * `aborted`). Change it only through a decision; later hooks see the
   * decisions of earlier ones applied.
   */
  message: AssistantMessage;
  /** How many `retry` decisions this turn has already used. */
  retriesUsed: number;
  /** Fires when the turn is aborted, or stopped because its event writer or history hook failed. */
  signal: AbortSignal;
}

/**
 * An `afterLlmCallHook` decision.
 *
 * - `continue`: keep the response.
 * - `replaceText`: replace the response's text blocks with one block `text`
 *   (thinking and tool calls kept).
 * - `retry`: drop this response (its tool calls are stripped, it is never
 *   sent again nor persisted) and ask again with `prompt` as a hidden
 *   message. Bounded per turn (default 2); past the bound the response is
 *   kept and a `debug.trace` warning is emitted.
 * - `fail`: strip the response's tool calls and fail the turn (code `hook`).
 *
 * A hook that throws fails the turn the same way as `fail`.
 */
export type AfterLlmCallDecision =
  | { type: "continue" }
  | { type: "replaceText"; text: string }
  | { type: "retry"; reason: string; prompt: string }
  | { type: "fail"; reason: string };

/** Runs at each completed assistant `message_end`, before its tool calls execute. */
export type AfterLlmCallHook = (
  event: AfterLlmCallEvent,
) => AfterLlmCallDecision | null | undefined | Promise<AfterLlmCallDecision | null | undefined>;

// ------------------------------------------------------------------- tools

/** What a tool hook sees about one call. */
export interface ToolCallHookEvent extends HookTurnContext {
  /** The raw tool call block, as the model sent it (arguments before validation). */
  toolCall: AgentToolCall;
  /** Validated, coerced arguments. */
  args: unknown;
  /** The assistant message that requested the call. */
  assistantMessage: AssistantMessage;
  /** Host id of the assistant message that made the call, when allocated. */
  assistantMessageId: string | undefined;
}

/**
 * A `beforeToolCallHook` decision. The first `block` wins (later hooks are
 * not asked). `blockedBy: "permission"` tells the host the user or a policy
 * refused, so a UI can show it as such. A hook that throws blocks the call
 * with the error's message.
 */
export type BeforeToolCallDecision =
  | { block: true; reason: string; blockedBy?: "permission" }
  | { block?: false }
  | null
  | undefined;

/** Runs before each admitted call executes (loop `beforeToolCall`). */
export type BeforeToolCallHook = (
  event: ToolCallHookEvent,
  signal: AbortSignal,
) => BeforeToolCallDecision | Promise<BeforeToolCallDecision>;

/** Observes a call that was admitted and is about to execute; errors are ignored. */
export type OnToolExecutionStartHook = (event: ToolCallHookEvent, signal: AbortSignal) => void | Promise<void>;

/** What an `afterToolCallHook` sees: the call and its result so far (patched by earlier hooks). */
export interface AfterToolCallEvent extends ToolCallHookEvent {
  /** The result as executed, then as patched by earlier hooks. */
  result: AgentToolResult<unknown>;
  /** Whether `result` is currently recorded as an error. */
  isError: boolean;
}

/**
 * A partial patch merged into the result; hooks run in order and each sees
 * the patched result. `terminateAgent` stops the agent after this batch.
 * A hook that throws turns the result into an error result.
 */
export interface AfterToolCallPatch {
  /** Replaces the result's content in full; omitted keeps it. */
  content?: (TextContent | ImageContent)[];
  /** Replaces the result's details in full when the key is present. */
  details?: unknown;
  /** Replaces the error flag; omitted keeps it. */
  isError?: boolean;
  /** Replaces the early-termination hint; the loop stops only when every result of the batch sets it. */
  terminate?: boolean;
  /** `true` stops the agent after this batch; a later hook cannot undo it. */
  terminateAgent?: boolean;
}

/** Runs after each call executed (loop `afterToolCall`). */
export type AfterToolCallHook = (
  event: AfterToolCallEvent,
  signal: AbortSignal,
) => AfterToolCallPatch | null | undefined | Promise<AfterToolCallPatch | null | undefined>;

// ----------------------------------------------------------------- history

/**
 * New history for the host to persist. `messageDelta` carries
 * messages not delivered before, in order, each once; `replaceMessages`
 * replaces everything (compaction) and resets the cursor. The caller's
 * initial history is never delivered.
 */
export type HistoryChange =
  | { reason: "messageDelta"; messages: AgentMessage[] }
  | {
      reason: "replaceMessages";
      messages: AgentMessage[];
      previousMessages: AgentMessage[];
      metadata?: Record<string, unknown>;
    };

/** Receives history to persist. A throw fails the turn: nothing is silently lost. */
export type OnHistoryChangedHook = (change: HistoryChange, context: HookTurnContext) => void | Promise<void>;

// --------------------------------------------------------------- step end

/** What an `onStepEndHook` sees at each `turn_end` of the loop. */
export interface StepEndEvent extends HookTurnContext {
  /** 0-based index of the step (one loop `turn_end`) within the turn. */
  stepIndex: number;
  /** The step's assistant message, possibly one that ended with `error` or `aborted`. */
  message: AssistantMessage;
  /** The step's tool-result messages, in the model's call order; empty when it called no tool. */
  toolResults: AgentMessage[];
  /**
   * Queues a steering message for the next step (or continues the turn at
   * idle). It is delivered into history, or handed back in the outcome's
   * `undeliveredMessages` when the turn stops first. A user message that
   * says nothing (text empty or only whitespace, no image) is left out
   * instead, with a `steering_dropped` warning. Throws once the turn has
   * ended.
   */
  enqueue(message: string | AgentMessage): void;
  /** Fires when the turn is aborted, or stopped because its event writer or history hook failed. */
  signal: AbortSignal;
}

/** Post-step work. A throw is reported as a `debug.trace` error; the turn goes on. */
export type OnStepEndHook = (event: StepEndEvent) => void | Promise<void>;

/**
 * The eight hooks of a turn. Each field takes one hook or an
 * ordered list. Every kind fails safe in one documented way: hooks that
 * decide what is sent fail closed (the turn fails or the call is blocked);
 * observers' errors are ignored; step-end errors are reported.
 *
 * What a hook is handed (messages, a response, a call and its arguments, a
 * tool result, a history change, a request) is a copy made for that hook:
 * editing it changes neither the turn's transcript nor what the model, a
 * tool or the next hook sees. A hook changes the turn only through its
 * decision, and what a decision hands over (messages, content) is copied
 * when it is taken, so editing it afterwards changes nothing either. The
 * first history hook's copy of a change is also the one the
 * `message.persisted` event carries.
 */
export interface PiTurnHooks {
  /** Before each model request: may change what is sent, answer instead, or abort. Fails closed. */
  beforeLlmCallHook?: HookList<BeforeLlmCallHook>;
  /** Observes each request as sent. Errors are ignored. */
  onLlmCallPreparedHook?: HookList<OnLlmCallPreparedHook>;
  /** At each completed response, before its tools run: may rewrite, retry or fail it. A throw fails the turn. */
  afterLlmCallHook?: HookList<AfterLlmCallHook>;
  /** Before each call whose arguments are valid, ahead of `execute`: may block it. A throw blocks the call. */
  beforeToolCallHook?: HookList<BeforeToolCallHook>;
  /** Observes each call right before it executes. Errors are ignored. */
  onToolExecutionStartHook?: HookList<OnToolExecutionStartHook>;
  /** After each call executed: may patch its result. A throw turns it into an error result. */
  afterToolCallHook?: HookList<AfterToolCallHook>;
  /** Receives the history to persist. A throw fails the turn. */
  onHistoryChangedHook?: HookList<OnHistoryChangedHook>;
  /** At each step end: post-step work, may queue steering. A throw is reported as a `debug.trace` error. */
  onStepEndHook?: HookList<OnStepEndHook>;
}

/** Normalises a {@link HookList} to an array. */
export function hookArray<THook>(hooks: HookList<THook> | undefined): readonly THook[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? (hooks as readonly THook[]) : [hooks as THook];
}
