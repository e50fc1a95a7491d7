import { Agent } from "@turnkit/agent-loop";
import { AGENT_TOOL_EXECUTION } from "../defaults.js";
import { projectAgentMessagesForModel } from "../messages/project-messages.js";
import { isDroppedResponse } from "../messages/turn-messages.js";
import { HistoryCursor } from "./history-cursor.js";
import type { RunningTurn, TurnState } from "./turn-state.js";

/**
 * Step 3 of a turn: the Agent, holding the system prompt, model, thinking
 * level, tools and the caller's history, and the history cursor placed
 * after that history (so it is never delivered back). Requests go through
 * the turn's call stack until the LLM hook seam wraps it (step 4).
 * Returns the same state object, now running.
 */
export function newAgent(turn: TurnState): RunningTurn {
  const { input } = turn;
  const history = input.history ?? [];
  const agent = new Agent({
    initialState: {
      systemPrompt: input.systemPrompt,
      model: input.llm.model,
      thinkingLevel: input.llm.thinkingLevel ?? "off",
      tools: turn.tools,
      messages: history,
    },
    convertToLlm: (messages) => projectAgentMessagesForModel(messages),
    streamFn: turn.mainCallStack,
    getApiKey: (provider) => (provider === input.llm.model.provider ? input.llm.apiKey : undefined),
    onPayload: input.llm.payloadTransform,
    onResponse: input.llm.responseObserver,
    sessionId: input.sessionId,
    toolExecution: AGENT_TOOL_EXECUTION,
  });
  return Object.assign(turn, { agent, cursor: new HistoryCursor(history.length, isDroppedResponse) });
}
