/** What the differential property varies of an `Agent` beyond the shared scenario: its settings and how its runs start. */

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
