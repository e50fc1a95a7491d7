/**
 * Watching a turn: its usage and cost, where its time went, its warnings,
 * its budget and its spans. One `TurnWatch` per turn, fed by the runner's
 * seams; it never changes what the turn does, except that the runner stops
 * the turn when `budgetReached` says so. (About 200 lines: the seams' entry
 * points in one place, the work in the files beside it.)
 */
import type { AssistantMessage, AssistantMessageEventStream, Context, Model } from "@mariozechner/pi-ai";
import type { AgentEvent, StreamFn } from "@turnkit/agent-loop";
import type { BudgetExceededDetail, RuntimeWarningPayload, StepReport, StreamRespPayload, TurnError, TurnOutcome, TurnReport } from "@turnkit/protocol";
import { classifyError, getAttachedClassifiedError } from "../call-stack/classify-error.js";
import type { LlmRetryNotification } from "../call-stack/llm-config.js";
import type { Clock } from "../clock.js";
import { AttemptTimes, ModelRequestRecord, millis } from "./request-timing.js";
import { ToolCallTimer } from "./tool-call-timing.js";
import { type TurnBudget, reachedLimit } from "./turn-budget.js";
import { type RequestSpan, type TurnTelemetryOptions, TurnTracing } from "./turn-tracing.js";
import { type RequestFamily, UsageLedger } from "./usage-ledger.js";
import { retryWarningText } from "./warning-text.js";

/** What a turn's watch needs from the runner. */
export interface TurnWatchOptions {
  clock: Clock;
  startedAt: number;
  sessionId: string;
  turnId: string;
  model: Model<any>;
  systemPrompt: string;
  budget: TurnBudget | undefined;
  telemetry: TurnTelemetryOptions | undefined;
  /** Emits a `runtime.warning` (the runner drops it once the turn settled). */
  warn: (warning: RuntimeWarningPayload) => void;
}

interface OpenRequest {
  record: ModelRequestRecord;
  span: RequestSpan | undefined;
}

/** The usage and timing of the loop's latest step, kept for the finish chunk that closes it. */
type ClosedStep = Omit<StepReport, "turnUsage">;

export class TurnWatch {
  private readonly usage = new UsageLedger();
  private readonly tools: ToolCallTimer;
  private readonly tracing: TurnTracing;
  private readonly requests: ModelRequestRecord[] = [];
  private readonly open: Partial<Record<RequestFamily, OpenRequest>> = {};
  private readonly now: () => number;
  private mainRequests = 0;
  private stepIndex = -1;
  private closedStep: ClosedStep | undefined;
  private imagesOmittedBefore = 0;

  constructor(private readonly options: TurnWatchOptions) {
    this.now = () => options.clock.now();
    this.tools = new ToolCallTimer(this.now);
    this.tracing = new TurnTracing(options.telemetry, options);
    this.tracing.startTurn(options.startedAt);
  }

  /** A request of `family` starts (before its first attempt); an earlier one of that family still open is closed. */
  requestStarted(family: RequestFamily, model: Model<any>, context: Context | undefined): void {
    this.closeRequest(family);
    if (family === "main") this.mainRequests++;
    const at = this.now();
    const record = new ModelRequestRecord(family, at);
    this.requests.push(record);
    this.open[family] = { record, span: this.tracing.startRequest(family, model, context, at) };
  }

  /**
   * Wraps the stream function that makes one provider attempt, so every
   * attempt of `family` is timed and its usage counted, also one that fails
   * before any output. Taps the returned stream's `push`: one function call
   * per event, no extra stream.
   */
  tapAttempts(family: RequestFamily, streamFn: StreamFn): StreamFn {
    return (model, context, options) => {
      const attempt = this.attemptStarted(family, model, context);
      const result = streamFn(model, context, options);
      if (result instanceof Promise) return result.then((stream) => tapStream(stream, attempt));
      return tapStream(result, attempt);
    };
  }

  /** A transport retry notice: waits add to the request's backoff and become a `runtime.warning`. */
  retryNotice(notice: LlmRetryNotification): void {
    if (notice.type !== "waiting") return;
    const family: RequestFamily = notice.label === "auxiliary" ? "auxiliary" : "main";
    const open = this.open[family];
    if (open) open.record.backoffMs += notice.delayMs;
    const error: TurnError = { code: notice.error.code, message: notice.error.message };
    this.tracing.retryWait(open?.span, notice.attempt, notice.delayMs, error, this.now());
    this.options.warn({
      code: notice.error.code === "timeout" ? "timeout_retried" : "retry_wait",
      message: retryWarningText(family, notice.error.code, notice.delayMs),
      family,
      attempt: notice.attempt,
      delayMs: notice.delayMs,
      error,
    });
  }

  /** One loop event, before the runner handles it: tool call times and spans, the end of the loop's request and step. */
  onAgentEvent(event: AgentEvent): void {
    switch (event.type) {
      case "tool_execution_start":
        this.tools.announced(event.toolCallId, event.toolName);
        this.tracing.startTool(event.toolCallId, event.toolName, event.args, this.now());
        return;
      case "tool_execution_end": {
        const ended = this.tools.ended(event.toolCallId);
        this.tracing.endTool(event.toolCallId, event.result, event.isError, ended?.timing, ended?.endedAt ?? this.now());
        return;
      }
      case "message_end":
        if (event.message.role === "assistant") this.closeStep();
        return;
      default:
        return;
    }
  }

  /**
   * A request left `count` images out. Every request re-projects the whole
   * history, so only a count above the last one reported is news.
   */
  imagesOmitted(count: number): void {
    if (count <= this.imagesOmittedBefore) return;
    this.imagesOmittedBefore = count;
    this.options.warn({ code: "images_dropped", message: `${count} image${count === 1 ? " was" : "s were"} left out of the request (too small, or past the per-request limit)`, count });
  }

  /** A tool call was admitted and is about to run. */
  toolAdmitted(toolCallId: string): void {
    this.tools.admitted(toolCallId);
  }

  /** A tool call's `execute` settled; its run time ends here. */
  toolSettled(toolCallId: string): void {
    this.tools.settled(toolCallId);
  }

  /** The first limit of the turn's budget its running totals reached, or `undefined`. */
  budgetReached(): BudgetExceededDetail | undefined {
    return reachedLimit(this.options.budget, { steps: this.mainRequests, outputTokens: this.usage.outputTokens(), cost: this.usage.cost() });
  }

  /** `payload` with the report of the step its `finish` chunk closes; other payloads unchanged. */
  withStepReport(payload: StreamRespPayload): StreamRespPayload {
    const { chunk } = payload;
    if (chunk.kind !== "finish" || !this.closedStep) return payload;
    const step: StepReport = { ...this.closedStep, turnUsage: this.usage.snapshot() };
    this.closedStep = undefined;
    return { ...payload, chunk: { ...chunk, step } };
  }

  /** The turn's usage and timing; ends every open span, the turn's last. Call once, with the outcome. */
  finish(outcome: TurnOutcome): TurnReport {
    this.closeRequest("main");
    this.closeRequest("auxiliary");
    const now = this.now();
    const usage = this.usage.snapshot();
    const timing = {
      wallMs: millis(now - this.options.startedAt),
      requests: this.requests.map((request) => request.timing(now)),
      toolCalls: this.tools.timings(now),
    };
    this.tracing.endTurn(outcome, usage, now);
    return { usage, timing };
  }

  private attemptStarted(family: RequestFamily, model: Model<any>, context: Context): AttemptTimes {
    if (!this.open[family]) this.requestStarted(family, model, context);
    const open = this.open[family]!;
    const attempt = new AttemptTimes(this.now, this.now(), (ended) => this.attemptEnded(family, open, ended));
    open.record.attempts.push(attempt);
    return attempt;
  }

  private attemptEnded(family: RequestFamily, open: OpenRequest, attempt: AttemptTimes): void {
    const message = attempt.final!;
    this.usage.addAttempt(family, message.usage);
    const number = open.record.attempts.indexOf(attempt) + 1;
    this.tracing.attemptEnded(open.span, number, message, errorOf(message), attempt.endedAt!);
    // A hook's request ends with its answer; the loop's ends at its message_end (after retries and an overflow resend).
    if (family === "auxiliary" && message.stopReason !== "error" && this.open.auxiliary === open) this.closeRequest("auxiliary");
  }

  /** The loop's response ended: its request closes and the step's usage and timing wait for its finish chunk. */
  private closeStep(): void {
    const open = this.open.main;
    this.closeRequest("main");
    this.stepIndex++;
    const step: ClosedStep = { stepIndex: this.stepIndex, usage: this.usage.takeStep() };
    if (open) step.timing = open.record.timing(this.now());
    this.closedStep = step;
  }

  private closeRequest(family: RequestFamily): void {
    const open = this.open[family];
    if (!open) return;
    this.open[family] = undefined;
    open.record.closed = true;
    const final = open.record.last?.final;
    if (!open.span) return;
    this.tracing.endRequest(open.span, final, () => requestUsage(open.record), final ? errorOf(final) : undefined, open.record.last?.endedAt ?? this.now());
  }
}

/** The usage every attempt of one request reported, summed. */
function requestUsage(record: ModelRequestRecord) {
  const ledger = new UsageLedger();
  for (const attempt of record.attempts) ledger.addAttempt(record.family, attempt.final?.usage);
  return ledger.snapshot()[record.family];
}

/** The classified failure of an `error` message (an abort is no failure). */
function errorOf(message: AssistantMessage): TurnError | undefined {
  if (message.stopReason !== "error") return undefined;
  const classified = getAttachedClassifiedError(message) ?? classifyError(message);
  return { code: classified.code, message: classified.message };
}

function tapStream(stream: AssistantMessageEventStream, attempt: AttemptTimes): AssistantMessageEventStream {
  const push = stream.push.bind(stream);
  stream.push = (event) => {
    attempt.observe(event);
    push(event);
  };
  return stream;
}
