import { PiTurnRunner, type EventWriter, type LlmConfig } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { toRunTurnInput, type AgentRuntime } from "../src/index.js";

/** Where the host keeps each session's transcript. */
export interface SessionStore {
  load(sessionId: string): Promise<AgentMessage[]>;
  append(sessionId: string, messages: AgentMessage[]): Promise<void>;
  replace(sessionId: string, messages: AgentMessage[]): Promise<void>;
}

export function createHost(runtime: AgentRuntime, store: SessionStore, llm: LlmConfig, eventWriter: EventWriter) {
  const runner = new PiTurnRunner();
  return async function send(sessionId: string, turnId: string, text: string, data?: Record<string, unknown>) {
    // 1. Assemble: what the enabled extensions contribute to this turn.
    const turn = await runtime.assembleTurn({ sessionId, turnId, data });
    for (const start of turn.turnStartHandlers) await start();
    // 2. Run: the host's inputs plus the assembled turn.
    const outcome = await runner.runTurn(
      toRunTurnInput(turn, {
        systemPrompt: "You are a coding assistant.",
        userMessage: { text },
        history: await store.load(sessionId),
        llm,
        eventWriter,
        hooks: {
          // 3. Persist: every new message, or a compacted replacement.
          onHistoryChangedHook: (change) =>
            change.reason === "messageDelta"
              ? store.append(sessionId, change.messages)
              : store.replace(sessionId, change.messages),
        },
      }),
    );
    for (const end of turn.turnEndHandlers) await end({ outcome });
    return outcome;
  };
}
