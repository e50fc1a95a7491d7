import type { MessageQueue } from "./message-queue.js";
import type { AgentLoopConfig, AgentState } from "./types.js";

/** The settings of an `Agent` that every request of a run reads: its public, host-assignable fields. */
export type AgentRunSettings = Pick<
  AgentLoopConfig,
  | "convertToLlm"
  | "transformContext"
  | "getApiKey"
  | "onPayload"
  | "onResponse"
  | "beforeToolCall"
  | "afterToolCall"
  | "onToolExecutionStart"
  | "shouldStopAfterTurn"
  | "shouldStopAfterSteering"
  | "sessionId"
  | "thinkingBudgets"
  | "transport"
  | "maxRetryDelayMs"
  | "toolExecution"
>;

/**
 * The loop configuration of one `Agent` run: the model and reasoning level
 * from the state as they are now, the agent's settings, and queue polls that
 * drain its steering and follow-up queues. With `skipInitialSteeringPoll`,
 * the first steering poll returns nothing (the run was started from those
 * steering messages already).
 */
export function agentRunConfig(
  settings: AgentRunSettings,
  state: AgentState,
  queues: { steering: MessageQueue; followUp: MessageQueue },
  skipInitialSteeringPoll: boolean,
): AgentLoopConfig {
  let skipSteeringPoll = skipInitialSteeringPoll;
  return {
    model: state.model,
    reasoning: state.thinkingLevel === "off" ? undefined : state.thinkingLevel,
    sessionId: settings.sessionId,
    onPayload: settings.onPayload,
    onResponse: settings.onResponse,
    transport: settings.transport,
    thinkingBudgets: settings.thinkingBudgets,
    maxRetryDelayMs: settings.maxRetryDelayMs,
    toolExecution: settings.toolExecution,
    beforeToolCall: settings.beforeToolCall,
    afterToolCall: settings.afterToolCall,
    onToolExecutionStart: settings.onToolExecutionStart,
    shouldStopAfterTurn: settings.shouldStopAfterTurn,
    shouldStopAfterSteering: settings.shouldStopAfterSteering,
    convertToLlm: settings.convertToLlm,
    transformContext: settings.transformContext,
    getApiKey: settings.getApiKey,
    getSteeringMessages: async () => {
      if (skipSteeringPoll) {
        skipSteeringPoll = false;
        return [];
      }
      return queues.steering.drain();
    },
    getFollowUpMessages: async () => queues.followUp.drain(),
  };
}
