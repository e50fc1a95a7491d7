import { Agent } from "@turnkit/agent-loop";
import { TURN_DEFAULTS } from "../defaults.js";
import { TranscriptProjection } from "../messages/transcript-projection.js";
import { isDroppedResponse } from "../messages/turn-messages.js";
import { HistoryCursor } from "./history-cursor.js";
import { providerCallbacks } from "./provider-callbacks.js";
import { hookArray } from "./turn-hooks.js";
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
  // Projects each message once for the whole turn instead of the whole transcript per request.
  const projection = new TranscriptProjection({
    imagesOmittedListener: turn.watch,
    messagesMayChangeInPlace: hostSeesMessages(turn),
  });
  const agent = new Agent({
    initialState: {
      systemPrompt: input.systemPrompt,
      model: input.llm.model,
      thinkingLevel: input.llm.thinkingLevel ?? "off",
      tools: turn.tools ?? [],
      messages: history,
    },
    convertToLlm: (messages) => projection.project(messages),
    streamFn: turn.mainCallStack,
    getApiKey: (provider) => (provider === input.llm.model.provider ? input.llm.apiKey : undefined),
    // Host code the provider calls mid-request: its failure is the host's, never a provider error.
    ...providerCallbacks(turn),
    sessionId: input.sessionId,
    toolExecution: TURN_DEFAULTS.agentToolExecution,
  });
  turn.agent = agent;
  // The Agent copied the tool table into its state: the turn lets go of its own list.
  turn.tools = undefined;
  turn.cursor = new HistoryCursor(history.length, isDroppedResponse);
  return turn as RunningTurn;
}

/**
 * Whether host code is handed transcript messages during the turn (hooks,
 * the stop and close callbacks) and so may change one in place; without
 * any, the loop only ever appends or replaces messages.
 */
function hostSeesMessages(turn: TurnState): boolean {
  const { hooks, input } = turn;
  const anyHook = Object.values(hooks).some((list) => hookArray(list).length > 0);
  return (
    anyHook ||
    input.shouldStopAfterTurn !== undefined ||
    input.shouldStopAfterSteering !== undefined ||
    input.tryBeginClose !== undefined
  );
}
