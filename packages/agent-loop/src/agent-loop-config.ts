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
 * steering messages already). The object is what every request of the run
 * hands its stream function as options (with `apiKey` and `signal`), as in
 * pi's `Agent`: the same keys, plus `onToolExecutionStart`,
 * `shouldStopAfterTurn` and `shouldStopAfterSteering` only when the agent
 * has them.
 */
export function agentRunConfig(
  settings: AgentRunSettings,
  state: AgentState,
  queues: { steering: MessageQueue; followUp: MessageQueue },
  skipInitialSteeringPoll: boolean,
): AgentLoopConfig {
  let skipSteeringPoll = skipInitialSteeringPoll;
  const config: AgentLoopConfig = {
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
  // The hooks pi's Agent does not have are set only when given, so a request's options carry the keys pi's do.
  const { onToolExecutionStart, shouldStopAfterTurn, shouldStopAfterSteering } = settings;
  if (onToolExecutionStart) config.onToolExecutionStart = onToolExecutionStart;
  if (shouldStopAfterTurn) config.shouldStopAfterTurn = shouldStopAfterTurn;
  if (shouldStopAfterSteering) config.shouldStopAfterSteering = shouldStopAfterSteering;
  return config;
}
