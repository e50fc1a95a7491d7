import type { Agent, AgentMessage, AgentTool } from "@turnkit/agent-loop";
import type { TurnError } from "@turnkit/protocol";
import type { AbortGrace } from "../aborts.js";
import type { StreamFn } from "../call-stack/stream-fn.js";
import type { EventBridge } from "../event-bridge/event-bridge.js";
import type { SerialEventQueue } from "../event-bridge/serial-event-queue.js";
import type { HistoryCursor } from "./history-cursor.js";
import type { RunTurnInput } from "./run-turn-input.js";
import type { RunnerDefaults } from "./runner-defaults.js";
import type { TurnWatch } from "../turn-watch/turn-watch.js";
import type { PiTurnHooks } from "./turn-hooks.js";
import type { TurnNesting } from "../sub-agents/turn-nesting.js";

/** What a before-LLM hook told the next request to do instead of calling the model. */
export type LlmDirective = { kind: "respond"; text: string } | { kind: "skip" };

/**
 * Everything one `runTurn` shares between its seams, declared in one place.
 * Created by `newTurn` (step 1), passed to every seam, dropped when the turn
 * ends; turns never share it. Each field says which seam writes it and
 * which seams read it; no other seam may write it.
 */
export interface TurnState {
  // ------------------------------------------------ fixed for the whole turn

  /** The validated turn input. Read everywhere. */
  readonly input: RunTurnInput;
  /** The runner's defaults (ids, clock, logger, metrics). Read everywhere. */
  readonly defaults: RunnerDefaults;
  /** The runner clock's time when the turn began (step 1). Read by step 8 for `turn.duration_ms`. */
  readonly startedAt: number;
  /** The sub-agent calls above the turn and how it starts a child turn (step 1). Read by `runChildTurn`. */
  readonly nesting: TurnNesting;
  /** `input.hooks`, or none. Read by the hook seams. */
  readonly hooks: PiTurnHooks;
  /** The serial event queue to the host's writer (step 1). Pushed to by the bridge, step 2 and step 8. */
  readonly events: SerialEventQueue;
  /** Turns Agent events into runtime events (step 1). Fed by the agent-event seam; its traces come from every seam. */
  readonly bridge: EventBridge;
  /**
   * The turn's tool table (step 1), until newAgent (step 3) hands it to the
   * Agent, which keeps its own copy: newAgent then clears it, so a running
   * turn does not hold a second list. Read by newAgent only.
   */
  tools: AgentTool<any>[] | undefined;
  /** Usage, timing, warnings, budget and spans of the turn (step 1). Fed by the seams through `turn-watching.ts`; read by step 8 for the outcome's report. */
  readonly watch: TurnWatch;
  /** The turn's call stack for the loop's requests (step 1, see `turn-call-stack.ts`). The Agent's stream function. */
  readonly mainCallStack: StreamFn;
  /** The call stack with a separate retry budget, for hooks' own requests (step 1, see `turn-call-stack.ts`). Read by the before-LLM hooks. */
  readonly auxiliaryStreamFn: StreamFn;
  /** The one abort grace every host call of the turn shares (step 1). Begun by step 6 and `failTurn`; ended by step 8. */
  readonly abortGrace: AbortGrace;
  /** The turn's Agent. Written once by newAgent (step 3); absent during steps 1 and 2 only. */
  agent?: Agent;
  /** Which messages the host has been given. Written once by newAgent (step 3); read by history delivery. */
  cursor?: HistoryCursor;

  // ------------------------------------------------------- changes as it runs

  /**
   * Messages the host handed over (steering it returned, messages an
   * `onStepEndHook` queued) and not yet delivered to `onHistoryChangedHook`,
   * in hand-over order. Added to by steering and step end; removed from by
   * history delivery; what is left is handed back in the outcome (step 8).
   * Made at the first hand-over (most turns have none).
   */
  undelivered: Set<AgentMessage> | undefined;
  /** `runTurn` has settled (step 8 decided the outcome): no host code is called and nothing is emitted any more. Written once by step 8. */
  settled: boolean;
  /**
   * Index of the first `onHistoryChangedHook` given up on after the abort:
   * it and the hooks after it are never called again (they would see a gap).
   * Written and read by history delivery.
   */
  historyHooksCutAt: number | undefined;
  /** The first failure; decides the outcome. Written only by `failTurn`; read by step 7, step 8 and the steering checks. */
  failure: TurnError | undefined;
  /**
   * The turn must end after the current step. Written by `failTurn`, by a
   * before-LLM `skip` and when the host's stop-after-steering check says so;
   * read by the loop's stop check, step-end steering and convergence at idle.
   */
  stopRequested: boolean;
  /** `tryBeginClose` succeeded. Written by the close attempts (step end, idle); read by step-end steering and convergence at idle. */
  closed: boolean;
  /** The caller's signal had fired before the Agent could start. Written by step 6; read by steps 7 and 8. */
  cancelledBeforeStart: boolean;
  /** 0-based index of the current model request; -1 before the first. Written by the before-LLM hooks; read by the LLM hook seam. */
  requestIndex: number;
  /** 0-based index of the current step (loop `turn_end`); -1 before the first. Written and read by the step-end seam. */
  stepIndex: number;
  /** `retry` decisions of the after-LLM hooks used so far. Written and read by the after-LLM hooks. */
  afterLlmRetries: number;
  /** The host's ids of the turn's assistant messages so far. Written and read by the message id allocation. */
  messageIds: Set<string>;
  /** What the next request does instead of calling the model. Written by the before-LLM hooks; taken (and cleared) by the turn's stream function. */
  nextDirective: LlmDirective | undefined;
  /** The loop's live context array of the latest request, when the turn has before-LLM hooks. Written by the before-LLM hooks; read by overflow recovery. */
  loopMessages: AgentMessage[] | undefined;
  /** The copy of each message the before-LLM hooks were shown, made at its first request. Filled and read by the before-LLM hooks. */
  hookMessageCopies: WeakMap<AgentMessage, AgentMessage> | undefined;
  /** Calls of the current step whose final result has `terminate` (made at the first). Filled at each `tool_execution_end`; read and cleared at step end. */
  terminatingCalls: Set<string> | undefined;
  /** An after-tool hook asked `terminateAgent` in the current step. Written by the after-tool hook; read and cleared at step end. */
  terminateAgentRequested: boolean;
}

/** The turn from step 3 on, when its Agent and history cursor exist. Every seam that runs after newAgent takes this. */
export interface RunningTurn extends TurnState {
  readonly agent: Agent;
  readonly cursor: HistoryCursor;
}
