/** What the differential property varies of an `Agent` beyond the shared scenario: its settings and how its runs start. */
import type { Message } from "@mariozechner/pi-ai";
import type { AgentMessage, AgentOptions } from "@turnkit/agent-loop";

/** `Agent` settings a request hands its stream function. */
export interface AgentSettingsSpec {
  thinkingLevel: "off" | "minimal" | "low" | "medium" | "high";
  sessionId: string | undefined;
  transport: "sse" | "websocket" | "auto" | undefined;
  maxRetryDelayMs: number | undefined;
  thinkingBudgets: { low?: number; high?: number } | undefined;
  /** `getApiKey` answers this key (`""`: an empty answer; `undefined`: no `getApiKey`). */
  apiKeyAnswer: string | undefined;
  /** `rewrite`: a host's asynchronous `convertToLlm` that marks user messages; `default`: the Agent's own. */
  convertToLlm: "default" | "rewrite";
  /** Whether the Agent has `onPayload` and `onResponse` callbacks (each request must pass them on). */
  providerCallbacks: boolean;
}

/** `prompt(message)`, `prompt(text)`, `prompt(text, images)`, or `prompt([message, message])`. */
export type PromptForm = "message" | "text" | "textWithImages" | "messages";

/** What the host does once the first run settled: prompt again, `continue()`, or `reset()` and prompt. */
export type LaterRun = "prompt" | "continue" | "resetAndPrompt";

/** The agent options the settings give (none without settings). */
export function settingOptions(settings: AgentSettingsSpec | undefined): Partial<AgentOptions> {
  if (!settings) return {};
  const { sessionId, transport, maxRetryDelayMs, thinkingBudgets, apiKeyAnswer, convertToLlm, providerCallbacks } =
    settings;
  return {
    sessionId,
    transport,
    maxRetryDelayMs,
    thinkingBudgets,
    ...(apiKeyAnswer !== undefined && { getApiKey: async () => apiKeyAnswer }),
    ...(convertToLlm === "rewrite" && { convertToLlm: rewrittenForModel }),
    ...(providerCallbacks && { onPayload: (payload: unknown) => payload, onResponse: () => {} }),
  };
}

/**
 * A host's own `convertToLlm`: asynchronous, it keeps the three roles a
 * model reads and marks every user message's text, so a request shows
 * which messages went through it.
 */
async function rewrittenForModel(messages: AgentMessage[]): Promise<Message[]> {
  await Promise.resolve();
  return messages.flatMap((message): Message[] => {
    if (message.role === "user") {
      const content =
        typeof message.content === "string"
          ? `(host) ${message.content}`
          : message.content.map((block) =>
              block.type === "text" ? { ...block, text: `(host) ${block.text}` } : block,
            );
      return [{ ...message, content } as Message];
    }
    return message.role === "assistant" || message.role === "toolResult" ? [message] : [];
  });
}
