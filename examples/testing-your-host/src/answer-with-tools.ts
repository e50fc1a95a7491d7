import { randomUUID } from "node:crypto";
import { PiTurnRunner, type Clock, type LlmConfig, type LlmRetryOptions, type RuntimeTool } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { ErrorCode, RuntimeEvent } from "@turnkit/protocol";
import { currencyTool } from "./currency-tool.js";
import { failureMessage } from "./failure-message.js";

/** What the host reports while it works, for a UI to show. */
export type Progress =
  | { type: "text"; delta: string }
  | { type: "tool"; name: string; ok: boolean; result: string }
  | { type: "retrying"; delayMs: number };

/** One tool call the answer was based on. */
export interface ToolCallSummary {
  name: string;
  arguments: Record<string, unknown>;
  ok: boolean;
  result: string;
}

/**
 * How `answerWithTools` ended. The host never throws for model or tool
 * failures: a failed turn becomes `failed` with a sentence for the user.
 */
export type Answer =
  | { status: "answered"; text: string; toolCalls: ToolCallSummary[] }
  | { status: "cancelled"; partialText: string }
  | { status: "failed"; code: ErrorCode; userMessage: string; partialText: string };

/** Everything `answerWithTools` talks to, passed in so a test can replace it. */
export interface AnswerDeps {
  /** The model and, in tests, a scripted stream function. */
  llm: LlmConfig;
  /** The tools offered. Default: the currency converter. */
  tools?: RuntimeTool[];
  /** Cancels the answer (the user pressed Esc). */
  signal?: AbortSignal;
  /** Receives text deltas, finished tool calls and retry waits as they happen. */
  onProgress?: (progress: Progress) => void;
  /** Time for retry backoff and stream timeouts. Default: the system clock. */
  clock?: Clock;
  /** Transport retry; `false` turns it off. Default: Turnkit's (5 retries, backoff from 1 s). */
  retry?: Omit<LlmRetryOptions, "observer"> | false;
}

/** The host's system prompt. */
export const SYSTEM_PROMPT =
  "You answer questions about money. Use convert_currency for every conversion; never guess rates.";

/**
 * The host: answers one question in one turn, with tools. Collects the
 * final assistant text from the turn's history, the tool calls from the
 * event stream, and turns the outcome into an {@link Answer}.
 */
export async function answerWithTools(question: string, deps: AnswerDeps): Promise<Answer> {
  const runner = new PiTurnRunner(deps.clock ? { clock: deps.clock } : {});
  const report = deps.onProgress ?? (() => {});
  const toolCalls: ToolCallSummary[] = [];
  const history: AgentMessage[] = [];
  let streamedText = "";

  const onEvent = (event: RuntimeEvent): void => {
    if (event.type !== "stream.resp") return;
    const { chunk } = event.payload;
    if (chunk.kind === "text") {
      streamedText += chunk.delta;
      report({ type: "text", delta: chunk.delta });
    } else if (chunk.kind === "tool_call" && (chunk.status === "finished" || chunk.status === "failed")) {
      const summary = {
        name: chunk.toolName,
        arguments: chunk.arguments ?? {},
        ok: chunk.status === "finished",
        result: (chunk.result?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join(""),
      };
      toolCalls.push(summary);
      report({ type: "tool", name: summary.name, ok: summary.ok, result: summary.result });
    }
  };

  const outcome = await runner.runTurn({
    sessionId: `answer-${randomUUID()}`,
    turnId: "turn-1",
    systemPrompt: SYSTEM_PROMPT,
    userMessage: { text: question },
    llm: deps.llm,
    tools: deps.tools ?? [currencyTool],
    disableBuiltinToolFallback: true,
    signal: deps.signal,
    llmRetry:
      deps.retry === false
        ? false
        : {
            ...deps.retry,
            observer: (notice) =>
              void (notice.type === "waiting" && report({ type: "retrying", delayMs: notice.delayMs })),
          },
    eventWriter: { push: onEvent },
    hooks: {
      onHistoryChangedHook: (change) => {
        if (change.reason === "messageDelta") history.push(...change.messages);
      },
    },
  });

  switch (outcome.kind) {
    case "completed":
      return { status: "answered", text: finalText(history), toolCalls };
    case "aborted":
      return { status: "cancelled", partialText: streamedText };
    case "failed":
      return {
        status: "failed",
        code: outcome.error.code,
        userMessage: failureMessage(outcome.error.code),
        partialText: streamedText,
      };
    default: {
      const unknown: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(unknown)}`);
    }
  }
}

/** The text of the last assistant message: the answer, without the "let me check" of earlier steps. */
function finalText(history: readonly AgentMessage[]): string {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role !== "assistant") continue;
    return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  }
  return "";
}
