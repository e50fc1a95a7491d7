import type { LlmConfig, LlmRetryOptions, RunTurnInput } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeWarningPayload } from "@turnkit/protocol";
import type { DurableRuntimeTool } from "../steps/durable-tool.js";
import type { DurableTurnHooks } from "../steps/hook-steps.js";
import type { DurableTurnRequest } from "./turn-request.js";

/**
 * What the host supplies for one turn, built by its `buildTurn` from the
 * stored request. The same fields as the runner's `RunTurnInput`, minus
 * those the durable layer owns (ids, user message, history, event writer,
 * signal, steering), with durable tools and hooks.
 */
export interface DurableTurnSetup {
  /** The system prompt of every model request of the turn. */
  systemPrompt: string;
  /** The model and its options; `llm.streamFn` (or pi-ai's `streamSimple`), or a fallback model's own `streamFn`, is the request each model step sends. */
  llm: LlmConfig;
  /**
   * The turn's tools. Only these run (the runner's built-in fallback is
   * off: pass `createBuiltinTools(...)` here to have them, as durable steps).
   */
  tools?: DurableRuntimeTool[];
  /** The runner's hooks, each call a step: one that finished before a crash is not called again on recovery (its recorded answer is used). */
  hooks?: DurableTurnHooks;
  /** Hidden messages placed before the user message (reminders, context). */
  beforeUserMessages?: AgentMessage[];
  /**
   * Warnings found while the setup was built (an MCP server that is down),
   * logged as `runtime.warning` events right after the turn's first
   * `session.status`, as the runner's `RunTurnInput.warnings`. The first
   * execution's list is recorded in a step: a recovery logs the same ones,
   * whatever its own `buildTurn` found.
   */
  warnings?: RuntimeWarningPayload[];
  /** Transport retry of each model request; every attempt is its own step. */
  llmRetry?: LlmRetryOptions | false;
  /** How long this turn's approvals wait for an answer before the call is blocked. Default: the worker's `approvalTimeoutMs`. */
  approvalTimeoutMs?: number;
  /** As the runner's: after steering arrived at a step end, true ends the turn without another request. Not a step: it runs again on recovery. */
  shouldStopAfterSteering?: RunTurnInput["shouldStopAfterSteering"];
  /** As the runner's: after each step that did not fail, true ends the turn there. Not a step: it runs again on recovery. */
  shouldStopAfterTurn?: RunTurnInput["shouldStopAfterTurn"];
}

/**
 * Builds a turn's setup from its request. Called in whichever worker runs
 * the turn, again on every recovery, so it must give the same setup for the
 * same request and have no side effects of its own (open connections
 * lazily; put effects in tools and hooks, which are steps).
 */
export type BuildDurableTurn = (request: DurableTurnRequest) => DurableTurnSetup | Promise<DurableTurnSetup>;
