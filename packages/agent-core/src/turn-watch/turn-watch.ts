// Why this file is long: the entry points of every seam that feeds a turn's watch, and its budget arithmetic, in one class; the work is in the files beside it.
/**
 * Watching a turn: its usage and cost, where its time went, its warnings,
 * its budget and its spans. One `TurnWatch` per turn, fed by the runner's
 * seams; it never changes what the turn does, except that the runner stops
 * the turn when `budgetReached` says so.
 */
import type { AssistantMessage, AssistantMessageEvent, Context, Model } from "@mariozechner/pi-ai";
import type { Context as OtelContext } from "@opentelemetry/api";
import type { AgentEvent } from "@turnkit/agent-loop";
import type {
  BudgetExceededDetail,
  ModelRequestTiming,
  ProtocolUsage,
  RuntimeWarningPayload,
  StepReport,
  SubAgentCallReport,
  TurnError,
  TurnOutcome,
  TurnReport,
} from "@turnkit/protocol";
import { classifyError, getAttachedClassifiedError } from "../call-stack/classify-error.js";
import type { LlmRetryNotification } from "../call-stack/llm-config.js";
import type { Clock } from "../clock.js";
import { AttemptTimes, ModelRequestRecord, millis } from "./request-timing.js";
import { ToolCallTimer } from "./tool-call-timing.js";
import { type TurnBudget, reachedLimit } from "./turn-budget.js";
import { type TurnTelemetryOptions, type TurnTracing, startTurnTracing } from "./turn-tracing.js";
import { type RequestFamily, UsageLedger, addUsage, zeroUsage } from "./usage-ledger.js";
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
  /** Where the watch's warnings go. */
  warnings: WarningSink;
  /** The trace context the turn's span goes under (a sub-agent turn's: its call's span); default the active one. */
  traceParent?: OtelContext;
  /** A sub-agent turn's: its parent turn's watch, told what this turn spends as it spends it, whose limits this turn keeps to as well. */
  parent?: TurnWatch;
}

/** Output tokens and cost spent so far. */
interface Spending {
  outputTokens: number;
  cost: number;
}

/** Emits a turn's `runtime.warning`s (the runner drops them once the turn settled). */
export interface WarningSink {
  warn(warning: RuntimeWarningPayload): void;
}

/**
 * One turn's watch. It keeps only what the turn has used so far: no span
 * object when there is no tracer (none passed, no SDK registered), no step
 * usage between steps, no auxiliary totals before a hook's request; the
 * options object is not kept.
 */
export class TurnWatch {
  private readonly clock: Clock;
  private readonly startedAt: number;
  private readonly budget: TurnBudget | undefined;
  private readonly warnings: WarningSink;
  private readonly tracing: TurnTracing | undefined;
  private readonly usage = new UsageLedger();
  private readonly tools: ToolCallTimer;
  /** The newest request; each links to the one before, so the turn keeps no list made for many more requests than it sent. */
  private newestRequest: ModelRequestRecord | undefined = undefined;
  private openMain: ModelRequestRecord | undefined = undefined;
  private openAuxiliary: ModelRequestRecord | undefined = undefined;
  private mainRequests = 0;
  private stepIndex = -1;
  /**
   * The loop's latest closed step, kept for the finish chunk that reports it: its usage and timing
   * (taken when it closed), not a report object, which is made only when that chunk is.
   */
  private closedStepUsage: ProtocolUsage | undefined = undefined;
  private closedStepTiming: ModelRequestTiming | undefined = undefined;
  private imagesOmittedBefore = 0;
  /** Reports of the sub-agent calls that ended, made at the first. */
  private subAgentCalls: SubAgentCallReport[] | undefined = undefined;
  private readonly turnId: string;
  /** The parent turn's watch until this turn finishes; from then on its report counts for the parent, and nothing more is passed on. */
  private parent: TurnWatch | undefined;
  /** What each sub-agent turn still running has spent so far, by its turn id; it leaves when its call's report counts instead. */
  private runningChildren: Map<string, Spending> | undefined = undefined;

  constructor(options: TurnWatchOptions) {
    this.clock = options.clock;
    this.startedAt = options.startedAt;
    this.budget = options.budget;
    this.warnings = options.warnings;
    this.turnId = options.turnId;
    this.parent = options.parent;
    this.tools = new ToolCallTimer(options.clock);
    this.tracing = startTurnTracing(options.telemetry, options, options.startedAt, options.traceParent);
  }

  /** A request of `family` starts (before its first attempt); an earlier one of that family still open is closed. */
  requestStarted(family: RequestFamily, model: Model<any>, context: Context | undefined): void {
    this.startRequest(family, model, context);
  }

  /**
   * A provider attempt of `family` starts (the retry layer tells, see
   * `onAttempt`); the returned function sees each of its events, so the
   * attempt is timed and its usage counted, also one that fails before any
   * output.
   */
  attemptStarted(family: RequestFamily, model: Model<any>, context: Context): (event: AssistantMessageEvent) => void {
    const request = this.openRequest(family) ?? this.startRequest(family, model, context);
    const attempt = request.addAttempt(this.clock, this.clock.now(), model);
    this.usage.countAttempt(family);
    return (event) => {
      if (attempt.observe(event)) this.attemptEnded(request, attempt);
    };
  }

  /** A transport retry notice: waits add to the request's backoff and become a `runtime.warning`. */
  retryNotice(notice: LlmRetryNotification): void {
    if (notice.type !== "waiting") return;
    const family: RequestFamily = notice.label === "auxiliary" ? "auxiliary" : "main";
    const open = this.openRequest(family);
    if (open) open.backoffMs += notice.delayMs;
    const error: TurnError = { code: notice.error.code, message: notice.error.message };
    this.tracing?.retryWait(open?.span, notice.attempt, notice.delayMs, error, this.clock.now());
    this.warnings.warn({
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
        this.tracing?.startTool(event.toolCallId, event.toolName, event.args, this.clock.now());
        return;
      case "tool_execution_end": {
        const announced = this.tools.ended(event.toolCallId);
        if (!this.tracing) return;
        const endedAt = announced ? this.tools.endedAt(event.toolCallId) : this.clock.now();
        this.tracing.endTool(
          event.toolCallId,
          event.result,
          event.isError,
          this.tools.timing(event.toolCallId, endedAt),
          endedAt,
        );
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
    this.warnings.warn({
      code: "images_dropped",
      message: `${count} image${count === 1 ? " was" : "s were"} left out of the request (too small, or past the per-request limit)`,
      count,
    });
  }

  /** A tool call was admitted and is about to run. */
  toolAdmitted(toolCallId: string): void {
    this.tools.admitted(toolCallId);
  }

  /** A tool call's `execute` settled; its run time ends here. */
  toolSettled(toolCallId: string): void {
    this.tools.settled(toolCallId);
  }

  /** The trace context of tool call `toolCallId`'s span, for the sub-agent turn it runs; `undefined` when not traced. */
  toolTraceContext(toolCallId: string): OtelContext | undefined {
    return this.tracing?.toolContext(toolCallId);
  }

  /** A sub-agent call ended: its report is kept for the turn's, and what it spent counts for the budget. */
  subAgentCallEnded(report: SubAgentCallReport): void {
    (this.subAgentCalls ??= []).push(report);
    this.usage.addSubAgentCall(report.usage);
    this.runningChildren?.delete(report.turnId);
  }

  /**
   * A running sub-agent turn (`childTurnId`) has spent `spending` so far, its
   * own sub-agents included: it counts for this turn's limits at once, so
   * children running side by side see each other's spending, and is passed
   * on to the turn above.
   */
  childSpent(childTurnId: string, spending: Spending): void {
    (this.runningChildren ??= new Map()).set(childTurnId, spending);
    this.parent?.childSpent(this.turnId, this.spent());
  }

  /** What the turn has spent so far: its requests, its sub-agent calls that ended and what those still running spent until now. */
  private spent(): Spending {
    let outputTokens = this.usage.outputTokens();
    let cost = this.usage.cost();
    for (const child of this.runningChildren?.values() ?? []) {
      outputTokens += child.outputTokens;
      cost += child.cost;
    }
    return { outputTokens, cost };
  }

  /**
   * What is left of the turn's output-token and cost limits (never below a
   * tiny positive amount, so it is a valid budget that any spending
   * reaches); a limit the budget does not set is absent.
   */
  budgetLeft(): { maxOutputTokens?: number; maxCost?: number } {
    const left: { maxOutputTokens?: number; maxCost?: number } = {};
    const spent = this.spent();
    if (this.budget?.maxOutputTokens !== undefined)
      left.maxOutputTokens = Math.max(this.budget.maxOutputTokens - spent.outputTokens, Number.MIN_VALUE);
    if (this.budget?.maxCost !== undefined) left.maxCost = Math.max(this.budget.maxCost - spent.cost, Number.MIN_VALUE);
    return left;
  }

  /**
   * The turn's output-token or cost limit its running totals (sub-agent
   * calls included, those still running with what they spent so far)
   * reached, or `undefined`. The step limit is left out: a sub-agent's steps
   * are its own.
   */
  spendingLimitReached(): BudgetExceededDetail | undefined {
    if (!this.budget) return undefined;
    const { maxOutputTokens, maxCost } = this.budget;
    const { outputTokens, cost } = this.spent();
    return reachedLimit({ maxOutputTokens, maxCost }, { steps: this.mainRequests, outputTokens, cost });
  }

  /**
   * For a sub-agent turn: the output-token or cost limit of a turn above it
   * (its parent's, then the parent's parent's...) that the running totals
   * of that turn reached, or `undefined`. Those totals count what the
   * sub-agents running beside this one have spent so far.
   */
  limitAboveReached(): BudgetExceededDetail | undefined {
    for (let above = this.parent; above; above = above.parent) {
      const reached = above.spendingLimitReached();
      if (reached) return reached;
    }
    return undefined;
  }

  /** The first limit of the turn's budget its running totals reached, or `undefined`. */
  budgetReached(): BudgetExceededDetail | undefined {
    if (!this.budget) return undefined;
    return reachedLimit(this.budget, {
      steps: this.mainRequests,
      outputTokens: this.usage.outputTokens(),
      cost: this.usage.cost(),
    });
  }

  /**
   * The report of the step closed last, with the turn's totals so far, for
   * the `finish` chunk being made now; `undefined` when it was reported
   * already (or no step closed). Each closed step is reported once.
   */
  takeStepReport(): StepReport | undefined {
    const usage = this.closedStepUsage;
    if (!usage) return undefined;
    const timing = this.closedStepTiming;
    this.closedStepUsage = undefined;
    this.closedStepTiming = undefined;
    const report: StepReport = { stepIndex: this.stepIndex, usage, turnUsage: this.usage.snapshot() };
    // Timing only when the step had a request.
    if (timing) report.timing = timing;
    return report;
  }

  /** The turn's usage and timing; ends every open span, the turn's last. Call once, with the outcome. */
  finish(outcome: TurnOutcome): TurnReport {
    // A request that ends after this (one given up on past the abort grace) is not passed on: the report counts instead.
    this.parent = undefined;
    this.closeRequest("main");
    this.closeRequest("auxiliary");
    const now = this.clock.now();
    const usage = this.usage.snapshot();
    const requests: ModelRequestTiming[] = [];
    for (let request = this.newestRequest; request; request = request.previous) requests.push(request.timing(now));
    requests.reverse();
    const timing = { wallMs: millis(now - this.startedAt), requests, toolCalls: this.tools.timings(now) };
    this.tracing?.endTurn(outcome, usage, now);
    return this.subAgentCalls ? { usage, timing, subAgentCalls: this.subAgentCalls } : { usage, timing };
  }

  private openRequest(family: RequestFamily): ModelRequestRecord | undefined {
    return family === "main" ? this.openMain : this.openAuxiliary;
  }

  private startRequest(family: RequestFamily, model: Model<any>, context: Context | undefined): ModelRequestRecord {
    this.closeRequest(family);
    const at = this.clock.now();
    const request = new ModelRequestRecord(family, at, this.newestRequest);
    this.newestRequest = request;
    if (this.tracing) request.span = this.tracing.startRequest(family, model, context, at);
    if (family === "main") {
      this.mainRequests++;
      this.openMain = request;
    } else {
      this.openAuxiliary = request;
    }
    return request;
  }

  private attemptEnded(request: ModelRequestRecord, attempt: AttemptTimes): void {
    const message = attempt.final!;
    this.usage.addAttemptUsage(request.family, message.usage);
    this.parent?.childSpent(this.turnId, this.spent());
    if (this.tracing)
      this.tracing.attemptEnded(request.span, attempt.number, message, errorOf(message), attempt.endedAt!);
    // A hook's request ends with its answer; the loop's ends at its message_end (after retries and an overflow resend).
    if (request.family === "auxiliary" && message.stopReason !== "error" && this.openAuxiliary === request)
      this.closeRequest("auxiliary");
  }

  /** The loop's response ended: its request closes and the step's usage and timing wait for its finish chunk. */
  private closeStep(): void {
    const open = this.openMain;
    this.closeRequest("main");
    this.stepIndex++;
    this.closedStepUsage = this.usage.takeStep();
    this.closedStepTiming = open?.timing(this.clock.now());
  }

  private closeRequest(family: RequestFamily): void {
    const open = this.openRequest(family);
    if (!open) return;
    if (family === "main") this.openMain = undefined;
    else this.openAuxiliary = undefined;
    const span = open.span;
    if (!span) return;
    const last = open.last;
    const final = last?.final;
    this.tracing!.endRequest(
      span,
      final,
      () => requestUsage(open),
      final ? errorOf(final) : undefined,
      last?.endedAt ?? this.clock.now(),
    );
  }
}

/** The usage every attempt of one request reported, summed in attempt order. */
function requestUsage(request: ModelRequestRecord): ProtocolUsage {
  const usage = zeroUsage();
  addAttemptUsage(usage, request.last);
  return usage;
}

function addAttemptUsage(usage: ProtocolUsage, attempt: AttemptTimes | undefined): void {
  if (!attempt) return;
  addAttemptUsage(usage, attempt.previous);
  addUsage(usage, attempt.final?.usage);
}

/** The classified failure of an `error` message (an abort is no failure). */
function errorOf(message: AssistantMessage): TurnError | undefined {
  if (message.stopReason !== "error") return undefined;
  const classified = getAttachedClassifiedError(message) ?? classifyError(message);
  return { code: classified.code, message: classified.message };
}
