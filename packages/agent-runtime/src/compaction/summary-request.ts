import type { AssistantMessage, Model, SimpleStreamOptions, Usage } from "@mariozechner/pi-ai";
import { classifyError } from "@turnkit/agent-core";
import type { AgentMessage, StreamFn } from "@turnkit/agent-loop";
import { COMPACTION_SUMMARY_INPUT_SHARE, COMPACTION_SUMMARY_SYSTEM_PROMPT } from "../defaults.js";
import { conversationText, keepNewest } from "./conversation-text.js";
import { estimateTextTokens } from "./token-estimate.js";

/** What one summary request is asked. */
export interface SummaryRequest {
  /** The hook's `auxiliaryStreamFn`: the turn's call stack with its own retry budget. */
  streamFn: StreamFn;
  /** The model that writes the summary. */
  model: Model<any>;
  /**
   * An API key for `model`; absent: what `streamFn` sends, the turn's key
   * for a model of the turn's provider, else none (pi-ai reads the
   * provider's environment variable).
   */
  apiKey?: string;
  /** The request's `maxTokens`. */
  maxTokens: number;
  /** The instructions after the conversation. */
  prompt: string;
  /** The messages to summarise. */
  messages: readonly AgentMessage[];
  /** Summaries of what came before `messages`, oldest first. */
  earlierSummaries: readonly string[];
  /** Fold the earlier summaries into the new one (true) or leave them as they are (false). */
  foldChain: boolean;
  /** True when `messages` end inside a turn whose later steps are kept. */
  splitTurn: boolean;
  /** Tool results longer than this are cut in the request. */
  toolResultMaxChars: number;
  /** The turn's signal. */
  signal: AbortSignal;
}

/** How a summary request ended; `model` (`provider/id`) is the model that answered: a fallback model when the request fell back. */
export type SummaryResult =
  | { ok: true; text: string; usage: Usage; model: string }
  | { ok: false; aborted: boolean; error: { code: string; message: string } };

/**
 * Sends one summary request and reads its answer. Never throws: a failed
 * request (after the auxiliary call stack's own retries: a 429, a 529, a
 * timeout), an abort, an exception or an empty answer is a result with
 * `ok: false` and the classified code (`empty_summary` for an answer without
 * text). An answer cut by its `maxTokens` is still a summary.
 *
 * A summary request that overflows the summary model's window (the estimate
 * was short: dense code, or a tokenizer that counts differently) is sent
 * once more with the conversation cut to the newest half of what was sent;
 * a second overflow is the result.
 */
export async function requestSummary(request: SummaryRequest): Promise<SummaryResult> {
  const conversation = conversationText(request.messages, request.toolResultMaxChars);
  const first = summaryPrompt(request, conversation, conversationBudget(request, conversation));
  const answer = await sendSummaryRequest(request, first.prompt);
  if (answer.ok || answer.error.code !== "context_overflow") return answer;
  const halved = Math.floor(estimateTextTokens(first.conversation) / 2);
  return sendSummaryRequest(request, summaryPrompt(request, conversation, halved).prompt);
}

async function sendSummaryRequest(request: SummaryRequest, prompt: string): Promise<SummaryResult> {
  const options: SimpleStreamOptions = { maxTokens: request.maxTokens, signal: request.signal };
  if (request.apiKey !== undefined) options.apiKey = request.apiKey;
  let message: AssistantMessage;
  try {
    const stream = await request.streamFn(
      request.model,
      {
        systemPrompt: COMPACTION_SUMMARY_SYSTEM_PROMPT,
        messages: [{ role: "user", content: [{ type: "text", text: prompt }], timestamp: Date.now() }],
      },
      options,
    );
    message = await stream.result();
  } catch (error) {
    const classified = classifyError(error);
    return {
      ok: false,
      aborted: classified.aborted === true,
      error: { code: classified.code, message: classified.message },
    };
  }
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    const classified = classifyError(message);
    const aborted = message.stopReason === "aborted" || classified.aborted === true;
    return { ok: false, aborted, error: { code: classified.code, message: classified.message } };
  }
  const text = message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("")
    .trim();
  if (text === "") {
    return {
      ok: false,
      aborted: false,
      error: { code: "empty_summary", message: "the summary request answered no text" },
    };
  }
  // The answer names the model that wrote it (pi-ai: the model's own id), which the turn's `llm.fallback` may have changed.
  const answeredBy =
    typeof message.provider === "string" && typeof message.model === "string" && message.model !== ""
      ? `${message.provider}/${message.model}`
      : `${request.model.provider}/${request.model.id}`;
  return { ok: true, text, usage: message.usage, model: answeredBy };
}

/**
 * The user message of the summary request: earlier summaries, the
 * conversation (cut to its newest `conversationTokens` by the estimate),
 * then the instructions. Returns the conversation as sent too.
 */
function summaryPrompt(
  request: SummaryRequest,
  conversation: string,
  conversationTokens: number,
): { prompt: string; conversation: string } {
  const { before, after } = promptParts(request);
  const sent = keepNewest(conversation, conversationTokens);
  return { prompt: [...before, `<conversation>\n${sent}\n</conversation>`, ...after].join("\n\n"), conversation: sent };
}

/**
 * The estimated tokens the conversation may take in the summary request:
 * the summary model's input share of its window (less the summary's
 * `maxTokens`) less the rest of the request; all of it when the window is
 * unknown.
 */
function conversationBudget(request: SummaryRequest, conversation: string): number {
  const window = request.model.contextWindow;
  if (!(window > 0)) return estimateTextTokens(conversation);
  const { before, after } = promptParts(request);
  const fixed = estimateTextTokens(COMPACTION_SUMMARY_SYSTEM_PROMPT + [...before, ...after].join("\n\n")) + 16;
  return Math.max(0, Math.floor((window - request.maxTokens) * COMPACTION_SUMMARY_INPUT_SHARE - fixed));
}

/** What the summary request says before the conversation (earlier summaries) and after it (the instructions). */
function promptParts(request: SummaryRequest): { before: string[]; after: string[] } {
  const before: string[] = [];
  const after: string[] = [];
  if (request.earlierSummaries.length > 0) {
    const earlier = request.earlierSummaries
      .map((summary, index) => `<summary part="${index + 1}">\n${summary}\n</summary>`)
      .join("\n\n");
    before.push(`<earlier-summaries>\n${earlier}\n</earlier-summaries>`);
    after.push(
      request.foldChain
        ? "The earlier summaries cover what came before the conversation. Fold them and the conversation into one summary of everything."
        : "The earlier summaries cover what came before the conversation and are kept as they are: do not repeat them, summarise only the conversation.",
    );
  }
  if (request.splitTurn) {
    after.push(
      "The conversation stops in the middle of a turn: the assistant is still working on the user's last request, and its later steps are kept verbatim. State that request exactly.",
    );
  }
  after.push(request.prompt);
  return { before, after };
}
