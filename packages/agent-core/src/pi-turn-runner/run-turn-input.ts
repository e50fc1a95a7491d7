import type { ImageContent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import type { LlmConfig, LlmRetryOptions } from "../call-stack/llm-config.js";
import type { RuntimeTool } from "../tools/runtime-tool.js";
import type { EventWriter } from "../event-bridge/serial-event-queue.js";
import { type TurnBudget, assertValidTurnBudget } from "../turn-watch/turn-budget.js";
import { assertKnownRunTurnInputKeys } from "./run-turn-input-keys.js";
import type { PiTurnHooks } from "./turn-hooks.js";

/** Text (and images) the user sent. Messages sharing a `batchId` reach the model as one. */
export interface TurnInputMessage {
  text: string;
  images?: ImageContent[];
  batchId?: string;
}

/**
 * Where a steering poll happens: `mid-turn` when more steps follow
 * (tool calls or queued messages), `exit` when this step would be the last.
 * At `exit` the host may withhold messages so they start a new turn instead
 * of extending a finished answer.
 */
export type SteeringBoundary = "mid-turn" | "exit";

/**
 * Everything one turn needs. Only `sessionId`, `turnId`,
 * `systemPrompt`, `llm.model`, `eventWriter` and either `userMessage` or
 * `startMode: "continue"` are required.
 */
export interface RunTurnInput {
  sessionId: string;
  turnId: string;
  systemPrompt: string;
  /** The user's message; omit it with `startMode: "continue"` to continue `history`. */
  userMessage?: TurnInputMessage;
  startMode?: "prompt" | "continue";
  /** Earlier messages of the session. Never delivered back to `onHistoryChangedHook`. */
  history?: AgentMessage[];
  /** Hidden messages placed before the user message (reminders, context). */
  beforeUserMessages?: AgentMessage[];
  llm: LlmConfig;
  tools?: RuntimeTool[];
  /** Without it, built-in `read`, `write`, `edit`, `bash` fill names the host did not bind. */
  disableBuiltinToolFallback?: boolean;
  /** Directory the built-in tools work in. Default: the runner's, else `process.cwd()`. */
  workspaceDir?: string;
  hooks?: PiTurnHooks;
  /** Transport retry; on by default, `false` turns it off. */
  llmRetry?: LlmRetryOptions | false;
  /**
   * Limits of this turn: steps, output tokens, cost. When one is reached the
   * turn ends after the current step (no new request, every tool call
   * answered) with outcome `failed`, code `budget_exceeded`. None by default.
   */
  budget?: TurnBudget;
  /** Receives every `RuntimeEvent` of the turn, in `seq` order. */
  eventWriter: EventWriter;
  /** The caller's cancellation. Its listeners are removed when the turn ends. */
  signal?: AbortSignal;
  /**
   * Polled at each step end and when the Agent is idle before the turn
   * closes. Every message returned is delivered into history or handed back
   * in the outcome's `undeliveredMessages`. A throw fails the turn (`internal`).
   */
  getSteeringMessages?: (context: { boundary: SteeringBoundary }) => TurnInputMessage[] | Promise<TurnInputMessage[]>;
  /**
   * After steering arrived at a step end: return true to end the turn without
   * another request (steering not yet in the transcript is handed back in the
   * outcome). A throw fails the turn (`internal`).
   */
  shouldStopAfterSteering?: (context: { steeringMessages: AgentMessage[] }) => boolean | Promise<boolean>;
  /**
   * After each step that did not fail, before steering is polled: return
   * true to end the turn there, without polling and without running work
   * queued at that point (handed back in the outcome); `tryBeginClose` is
   * still asked once. A throw fails the turn (`internal`).
   */
  shouldStopAfterTurn?: (context: { message: AgentMessage; toolResults: AgentMessage[] }) => boolean | Promise<boolean>;
  /**
   * Atomically closes intake when the turn would end (also when it stops
   * on a host decision). `false` means new work won the race; the runner
   * polls steering again. A throw fails the turn (`internal`).
   */
  tryBeginClose?: (context: { lastAssistantMessage: AgentMessage | undefined }) => boolean | Promise<boolean>;
}

function invalid(message: string): TurnkitConfigError {
  return new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, message);
}

/**
 * Checks a `RunTurnInput` before anything starts. Throws a
 * `TurnkitConfigError` naming the field: `unknown_key` for a key of the
 * input, its `llm`, `hooks`, `llmRetry` or `userMessage` that Turnkit does
 * not know (with the nearest valid key); `invalid_turn_input` for missing
 * ids, model, message or wrong types, and for `startMode: "continue"`
 * without a history or with one that ends in an assistant message (nothing
 * to answer), and for a `budget` whose limits are not positive numbers
 * (`maxSteps` a positive integer); `invalid_event_writer` for a writer
 * without a callable `push`.
 */
export function assertValidRunTurnInput(input: RunTurnInput): void {
  if (typeof input !== "object" || input === null) throw invalid("RunTurnInput must be an object");
  assertKnownRunTurnInputKeys(input);
  const writer = input.eventWriter as unknown;
  if (typeof writer !== "object" || writer === null || typeof (writer as { push?: unknown }).push !== "function") {
    throw new TurnkitConfigError(ConfigErrorCode.InvalidEventWriter, "RunTurnInput.eventWriter must be an object with a push(event) function");
  }
  for (const field of ["sessionId", "turnId"] as const) {
    if (typeof input[field] !== "string" || input[field] === "") throw invalid(`RunTurnInput.${field} must be a non-empty string`);
  }
  if (typeof input.systemPrompt !== "string") throw invalid("RunTurnInput.systemPrompt must be a string");
  const model = input.llm?.model as unknown;
  if (typeof model !== "object" || model === null || typeof (model as { provider?: unknown }).provider !== "string") {
    throw invalid("RunTurnInput.llm.model is missing: pass a pi-ai Model (getModel(provider, id))");
  }
  const continuing = input.startMode === "continue";
  if (!continuing) {
    if (typeof input.userMessage !== "object" || input.userMessage === null || typeof input.userMessage.text !== "string") {
      throw invalid('RunTurnInput.userMessage.text is missing (or set startMode: "continue" to continue the history)');
    }
  }
  if (input.history !== undefined && !Array.isArray(input.history)) throw invalid("RunTurnInput.history must be an array");
  if (continuing) {
    const last = input.history?.[input.history.length - 1];
    if (!last) throw invalid('RunTurnInput.startMode "continue" needs a non-empty history');
    // A provider cannot answer an assistant tail, and no steering is queued yet: the turn could only fail.
    if (last.role === "assistant") {
      throw invalid('RunTurnInput.startMode "continue" needs a history that ends with a user, tool-result or hidden message, not an assistant message');
    }
  }
  if (input.tools !== undefined && !Array.isArray(input.tools)) throw invalid("RunTurnInput.tools must be an array");
  assertValidTurnBudget(input.budget);
}
