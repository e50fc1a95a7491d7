/**
 * Invariant 2: every tool call in the final transcript has exactly one
 * result, and the transcript converts for a real provider without orphan
 * repair.
 *
 * Two checks. (a) Structural, on the raw transcript: each tool call of a
 * completed assistant message (not `error`/`aborted`, which are never
 * replayed, behaviour L5) has exactly one tool result before the next assistant
 * message, and every tool result answers a call of the assistant message
 * before it. (b) pi-ai's own OpenAI Chat Completions conversion
 * (`convertMessages` from `@mariozechner/pi-ai/openai-completions`, the
 * function its provider sends with): pi-ai repairs orphans there (its
 * `transformMessages` inserts a synthetic "No result provided" result for a
 * call without one), so the check is that the converted request needed no
 * repair — as many `tool` messages out as tool results in — and that it is
 * what the API accepts: each `tool` message directly follows the assistant
 * message whose `tool_calls` name it, and every `tool_call` is answered once
 * before the next non-tool message. (c) For a turn: every message is well
 * formed (see {@link checkMessagesWellFormed}).
 */
import type { Message, Model } from "@mariozechner/pi-ai";
import { convertMessages } from "@mariozechner/pi-ai/openai-completions";
import { messageProblem } from "@turnkit/agent-core/internal";
import type { AgentMessage } from "@turnkit/agent-loop";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "2 tool calls answered, transcript replayable";

/** A real OpenAI Chat Completions model description (never called). */
const OPENAI_MODEL: Model<"openai-completions"> = {
  id: "gpt-4o-mini",
  name: "GPT-4o mini",
  api: "openai-completions",
  provider: "openai",
  baseUrl: "https://api.openai.com/v1",
  reasoning: false,
  input: ["text", "image"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128_000,
  maxTokens: 16_384,
};

/** pi-ai's detected compat for api.openai.com (its `getCompat` is not exported). */
const OPENAI_COMPAT: Parameters<typeof convertMessages>[2] = {
  supportsStore: true,
  supportsDeveloperRole: true,
  supportsReasoningEffort: true,
  supportsUsageInStreaming: true,
  maxTokensField: "max_completion_tokens",
  requiresToolResultName: false,
  requiresAssistantAfterToolResult: false,
  requiresThinkingAsText: false,
  requiresReasoningContentOnAssistantMessages: false,
  thinkingFormat: "openai",
  openRouterRouting: {},
  vercelGatewayRouting: {},
  zaiToolStream: false,
  supportsStrictMode: true,
  sendSessionAffinityHeaders: false,
  supportsLongCacheRetention: true,
};

/**
 * (c) Every message is well formed (`messageProblem`): host code that
 * handed the turn a malformed message or content block (a hook's decision
 * or patch, a queued message) was refused where it came in, so nothing of
 * it reached the transcript.
 */
export function checkMessagesWellFormed(messages: readonly AgentMessage[], where: string): void {
  messages.forEach((message, index) => {
    const problem = messageProblem(message);
    if (problem) throw new InvariantViolation(INVARIANT, `${where}: message #${index}${problem}`);
  });
}

/** Half of a UTF-16 character: a high surrogate without its low one after it, or a low one without its high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * (d) A runner's history holds no half character in a tool result's text
 * (a tool's text cut inside an emoji): some providers refuse a request
 * that holds one, and the history would carry it into every later request.
 */
export function checkToolTextWellFormed(messages: readonly AgentMessage[], where: string): void {
  messages.forEach((message, index) => {
    if (message.role !== "toolResult") return;
    for (const block of message.content)
      if (block.type === "text" && LONE_SURROGATE.test(block.text))
        throw new InvariantViolation(INVARIANT, `${where}: message #${index} has half a character in its text`);
  });
}

/** (a) The structural check on a raw transcript (custom roles allowed and skipped). */
export function checkToolCallsAnswered(transcript: readonly AgentMessage[], where: string): void {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, `${where}: ${detail}`);
  };
  let open: Map<string, number> | undefined;
  let openIndex = -1;
  const close = () => {
    if (!open) return;
    for (const [id, count] of open)
      if (count !== 1) fail(`tool call ${id} of message #${openIndex} has ${count} results`);
    open = undefined;
  };
  transcript.forEach((message, index) => {
    if (message.role === "assistant") {
      close();
      if (message.stopReason === "error" || message.stopReason === "aborted") return;
      const calls = message.content.filter((block) => block.type === "toolCall");
      if (calls.length === 0) return;
      open = new Map(calls.map((call) => [call.id, 0]));
      openIndex = index;
    } else if (message.role === "toolResult") {
      if (!open?.has(message.toolCallId))
        fail(`tool result #${index} for ${message.toolCallId} answers no call of the assistant message before it`);
      open!.set(message.toolCallId, open!.get(message.toolCallId)! + 1);
    }
  });
  close();
}

/** (b) pi-ai's OpenAI conversion of the messages a request would send. */
export function checkProviderConversion(llmMessages: readonly Message[], where: string): void {
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, `${where}: ${detail}`);
  };
  let converted: ReturnType<typeof convertMessages>;
  try {
    converted = convertMessages(OPENAI_MODEL, { systemPrompt: "system", messages: [...llmMessages] }, OPENAI_COMPAT);
  } catch (error) {
    return fail(`pi-ai convertMessages threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  const resultsIn = llmMessages.filter((message) => message.role === "toolResult").length;
  const toolMessagesOut = converted.filter((message) => message.role === "tool").length;
  if (toolMessagesOut !== resultsIn) {
    fail(
      `pi-ai had to repair the transcript: ${resultsIn} tool results in, ${toolMessagesOut} tool messages out (synthetic results for unanswered calls)`,
    );
  }
  let pending: Set<string> | undefined;
  converted.forEach((message, index) => {
    if (message.role === "tool") {
      if (!pending?.has(message.tool_call_id))
        fail(`tool message #${index} (${message.tool_call_id}) does not follow an assistant message that called it`);
      pending!.delete(message.tool_call_id);
      return;
    }
    if (pending && pending.size > 0)
      fail(`tool calls ${[...pending].join(", ")} unanswered before a ${message.role} message (#${index})`);
    pending = undefined;
    if (message.role === "assistant" && message.tool_calls && message.tool_calls.length > 0) {
      pending = new Set(message.tool_calls.map((call) => call.id));
      if (pending.size !== message.tool_calls.length) fail(`assistant message #${index} repeats a tool call id`);
    }
  });
  if (pending && pending.size > 0) fail(`tool calls ${[...pending].join(", ")} unanswered at the end of the request`);
}
