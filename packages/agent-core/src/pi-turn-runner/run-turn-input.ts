import type { ImageContent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeWarningPayload } from "@turnkit/protocol";
import type { ActionRequestAnswerer } from "../action-requests.js";
import type { LlmConfig, LlmRetryOptions } from "../call-stack/llm-config.js";
import type { RuntimeTool } from "../tools/runtime-tool.js";
import type { EventWriter } from "../event-bridge/serial-event-queue.js";
import type { TurnBudget } from "../turn-watch/turn-budget.js";
import type { PiTurnHooks } from "./turn-hooks.js";

/** Text (and images) the user sent. Messages sharing a `batchId` reach the model as one. */
export interface TurnInputMessage {
  /** What the user typed; may be empty when images carry the message. */
  text: string;
  /** Images sent with the text, in order; subject to the per-request image limits. */
  images?: ImageContent[];
  /** Messages sharing this id were sent together and reach the model as one user message. */
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
  /** The conversation this turn belongs to; passed to every hook, tool and event. Non-empty. */
  sessionId: string;
  /** This turn's id, unique within the session; every event carries it. Non-empty. */
  turnId: string;
  /** The system prompt of every request of the turn (hooks may change a request's messages, not this). */
  systemPrompt: string;
  /** The user's message; omit it with `startMode: "continue"` to continue `history`. Its text must say something (not empty or only whitespace) unless it holds an image. */
  userMessage?: TurnInputMessage;
  /** `prompt` (default) sends `userMessage`; `continue` answers the end of `history`, which must not end with an assistant message. */
  startMode?: "prompt" | "continue";
  /** Earlier messages of the session. Never delivered back to `onHistoryChangedHook`. */
  history?: AgentMessage[];
  /** Hidden messages placed before the user message (reminders, context). */
  beforeUserMessages?: AgentMessage[];
  /**
   * Warnings found while the turn was prepared (an extension that cannot
   * provide all it should, such as an MCP server that is down), emitted in
   * order as `runtime.warning` events right after the turn's first
   * `session.status`. `toRunTurnInput` fills it from the assembled turn.
   */
  warnings?: RuntimeWarningPayload[];
  /** The model, its credentials and the call stack's options (timeouts, caps, headers). `llm.model` is required. */
  llm: LlmConfig;
  /** The tools the model may call this turn; names must be unique. */
  tools?: RuntimeTool[];
  /** Without it, built-in `read`, `write`, `edit`, `bash` fill names the host did not bind. */
  disableBuiltinToolFallback?: boolean;
  /** Directory the built-in tools work in. Default: the runner's, else `process.cwd()`. */
  workspaceDir?: string;
  /** The host's hooks at each seam of the turn (before/after each model call, each tool call, history, step end). */
  hooks?: PiTurnHooks;
  /**
   * How long, in milliseconds, the turn waits for each hook and host
   * callback (the `hooks`, `getSteeringMessages`, `tryBeginClose`,
   * `shouldStopAfterTurn`, `shouldStopAfterSteering`, the provider
   * callbacks of `llm`, the runner's `allocateMessageId`) to answer. One
   * that has not answered by then (on the runner's clock) counts as having
   * thrown an error naming it and the limit, and its late answer is
   * dropped: a before-LLM, after-LLM or history hook fails the turn (code
   * `hook`), a before-tool hook blocks the call, an after-tool hook makes
   * the result an error result, an observer is ignored, a step-end hook is
   * reported, a host callback fails the turn (`internal`). The event
   * writer's `push` is bounded too: one that has not settled by then fails
   * the turn (`internal`) and is given up on, the events waiting behind it
   * dropped and announced (see `EventWriter.push`). A positive
   * integer. Default: no limit (a permission hook may wait for a person);
   * aborting the turn always bounds the wait (see the abort grace).
   */
  hookTimeoutMs?: number;
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
  /**
   * Answers what code in the turn asks a person (a tool's `ctx.askHost`: an
   * MCP server's elicitation, an approval inside a sub-agent). Called after
   * the request's `action.required` event was queued, with a signal that
   * fires when the turn stops waiting. Without it every request is refused
   * at once.
   */
  answerActionRequest?: ActionRequestAnswerer;
  /** The caller's cancellation. Its listeners are removed when the turn ends. */
  signal?: AbortSignal;
  /**
   * Polled at each step end and when the Agent is idle before the turn
   * closes. Every message returned is delivered into history or handed back
   * in the outcome's `undeliveredMessages`, but for one that says nothing
   * (text empty or only whitespace, no image): that one is left out, with a
   * `steering_dropped` warning, and never makes the turn go on. A throw
   * fails the turn (`internal`).
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
   * polls steering again. A throw, or an answer that is no boolean, fails
   * the turn (`internal`).
   */
  tryBeginClose?: (context: { lastAssistantMessage: AgentMessage | undefined }) => boolean | Promise<boolean>;
}
