import type { AssistantMessage, Context, Model } from "@mariozechner/pi-ai";
import {
  type Attributes,
  type Context as OtelContext,
  type HrTime,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  context,
  trace,
} from "@opentelemetry/api";
import type { ProtocolUsage, TurnError, TurnOutcome, TurnUsage } from "@turnkit/protocol";
import type { RequestFamily } from "./usage-ledger.js";

/** The instrumentation scope of every span the runner emits. */
export const TRACER_NAME = "@turnkit/agent-core";

/**
 * OpenTelemetry for `PiTurnRunner`. The runner emits spans through the
 * `@opentelemetry/api` package only: without a registered SDK (and without
 * `tracer`) every span is a no-op and costs next to nothing.
 */
export interface TurnTelemetryOptions {
  /** Where spans go. Default: the global tracer provider's tracer named `@turnkit/agent-core` (a no-op until the host registers an SDK). */
  tracer?: Tracer;
  /**
   * Also record prompt and completion text: the system prompt, the request's
   * messages and the response (`gen_ai.system_instructions`,
   * `gen_ai.input.messages`, `gen_ai.output.messages`), tool arguments and
   * results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`).
   * Images are described, never copied. Default false: spans carry names,
   * ids, models, token counts and timings only.
   */
  recordContent?: boolean;
}

/** The spans of one model request: its `chat` span, with one event per attempt and per retry wait. */
export interface RequestSpan {
  readonly span: Span;
  readonly recording: boolean;
}

/** What the turn's span names: its session, its id and its model. */
export interface TracedTurn {
  sessionId: string;
  turnId: string;
  model: Model<any>;
}

/**
 * The spans of a turn that began at `at`, or `undefined` when nothing could
 * record them: no `tracer` given and no SDK registered with the global
 * tracer provider, so every span would be a no-op. Then no span object is
 * created at all. The global provider is asked per turn, so an SDK
 * registered between turns traces the next one.
 */
export function startTurnTracing(
  options: TurnTelemetryOptions | undefined,
  turn: TracedTurn,
  at: number,
  parentContext?: OtelContext,
): TurnTracing | undefined {
  const tracer = options?.tracer ?? globalTracer();
  if (!tracer) return undefined;
  const tracing = new TurnTracing(tracer, options?.recordContent === true);
  tracing.startTurn(turn, at, parentContext);
  return tracing;
}

/**
 * The global provider's tracer for the runner's spans. `undefined` while
 * the global provider is the API's proxy without a delegate (no SDK
 * registered): its tracer would only hand out no-op spans.
 */
function globalTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider) return provider.getDelegateTracer(TRACER_NAME);
  return provider.getTracer(TRACER_NAME);
}

/**
 * The spans of one turn: an `invoke_agent` span for the turn, a `chat`
 * span per model request (child of the turn; attempts and retry waits are
 * its events) and an `execute_tool` span per tool call (child of the turn),
 * named and attributed after the OpenTelemetry GenAI semantic conventions.
 * Times come from the runner's clock. When the turn's span does not record
 * (the turn not sampled) no other span is created, so such a turn pays for
 * one no-op span. Never throws into the turn: a failing tracer is the
 * host's problem, not the turn's.
 */
export class TurnTracing {
  private turnSpan: Span | undefined;
  private parent: OtelContext | undefined;
  /** The turn's span records: when the turn is not sampled no child span is even created. */
  private recording = false;
  private readonly toolSpans = new Map<string, Span>();

  constructor(
    private readonly tracer: Tracer,
    private readonly recordContent: boolean,
  ) {}

  /** Starts the turn's span, a child of `parentContext` (a sub-agent's call) or else of the active context. */
  startTurn(turn: TracedTurn, at: number, parentContext?: OtelContext): void {
    guarded(() => {
      const { model, sessionId, turnId } = turn;
      this.turnSpan = this.tracer.startSpan(
        "invoke_agent",
        {
          kind: SpanKind.INTERNAL,
          startTime: spanTime(at),
          attributes: {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": model.provider,
            "gen_ai.request.model": model.id,
            "gen_ai.conversation.id": sessionId,
            "turnkit.turn.id": turnId,
          },
        },
        parentContext ?? context.active(),
      );
      this.recording = this.turnSpan.isRecording();
      if (this.recording) this.parent = trace.setSpan(parentContext ?? context.active(), this.turnSpan);
    });
  }

  startRequest(
    family: RequestFamily,
    model: Model<any>,
    request: Context | undefined,
    at: number,
  ): RequestSpan | undefined {
    if (!this.recording) return undefined;
    return guarded(() => {
      const attributes: Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": model.provider,
        "gen_ai.request.model": model.id,
        "turnkit.request.family": family,
      };
      const span = this.tracer.startSpan(
        `chat ${model.id}`,
        { kind: SpanKind.CLIENT, startTime: spanTime(at), attributes },
        this.parent,
      );
      const recording = span.isRecording();
      if (recording && this.recordContent && request) {
        if (request.systemPrompt) span.setAttribute("gen_ai.system_instructions", request.systemPrompt);
        span.setAttribute("gen_ai.input.messages", contentJson(request.messages));
      }
      return { span, recording };
    });
  }

  attemptEnded(
    request: RequestSpan | undefined,
    attempt: number,
    message: AssistantMessage,
    error: TurnError | undefined,
    at: number,
  ): void {
    if (!request?.recording) return;
    guarded(() => {
      const attributes: Attributes = {
        "turnkit.attempt": attempt,
        "turnkit.attempt.outcome":
          message.stopReason === "error" ? "error" : message.stopReason === "aborted" ? "aborted" : "ok",
      };
      if (error) attributes["error.type"] = error.code;
      setUsage(attributes, message.usage);
      request.span.addEvent("turnkit.attempt", attributes, spanTime(at));
    });
  }

  retryWait(request: RequestSpan | undefined, attempt: number, delayMs: number, error: TurnError, at: number): void {
    if (!request?.recording) return;
    guarded(() =>
      request.span.addEvent(
        "turnkit.retry_wait",
        { "turnkit.attempt": attempt, "turnkit.retry.delay_ms": delayMs, "error.type": error.code },
        spanTime(at),
      ),
    );
  }

  endRequest(
    request: RequestSpan | undefined,
    final: AssistantMessage | undefined,
    usage: () => ProtocolUsage,
    error: TurnError | undefined,
    at: number,
  ): void {
    if (!request) return;
    guarded(() => {
      const { span } = request;
      if (request.recording) {
        const attributes: Attributes = {};
        setUsage(attributes, usage());
        if (final) {
          attributes["gen_ai.response.model"] = final.responseModel ?? final.model;
          if (final.responseId) attributes["gen_ai.response.id"] = final.responseId;
          attributes["gen_ai.response.finish_reasons"] = [final.stopReason];
          if (this.recordContent) attributes["gen_ai.output.messages"] = contentJson([final]);
        }
        span.setAttributes(attributes);
        setError(span, error);
      }
      span.end(spanTime(at));
    });
  }

  /** The context of tool call `toolCallId`'s span while it runs (a sub-agent's turn span goes under it), if it has one. */
  toolContext(toolCallId: string): OtelContext | undefined {
    const span = this.toolSpans.get(toolCallId);
    return span && this.parent ? trace.setSpan(this.parent, span) : undefined;
  }

  startTool(toolCallId: string, toolName: string, args: unknown, at: number): void {
    if (!this.recording) return;
    guarded(() => {
      const span = this.tracer.startSpan(
        `execute_tool ${toolName}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: spanTime(at),
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": toolName,
            "gen_ai.tool.call.id": toolCallId,
            "gen_ai.tool.type": "function",
          },
        },
        this.parent,
      );
      if (this.recordContent && span.isRecording()) span.setAttribute("gen_ai.tool.call.arguments", safeJson(args));
      this.toolSpans.set(toolCallId, span);
    });
  }

  endTool(
    toolCallId: string,
    result: unknown,
    isError: boolean,
    timing: { queuedMs: number; runMs: number } | undefined,
    at: number,
  ): void {
    const span = this.toolSpans.get(toolCallId);
    if (!span) return;
    this.toolSpans.delete(toolCallId);
    guarded(() => {
      if (span.isRecording()) {
        if (timing)
          span.setAttributes({ "turnkit.tool.queued_ms": timing.queuedMs, "turnkit.tool.run_ms": timing.runMs });
        if (this.recordContent) span.setAttribute("gen_ai.tool.call.result", contentJson([result]));
        if (isError) {
          span.setAttribute("error.type", "tool_error");
          span.setStatus({ code: SpanStatusCode.ERROR, message: firstText(result) ?? "the tool call failed" });
        }
      }
      span.end(spanTime(at));
    });
  }

  /** Ends every span still open (tool calls the turn never finished), then the turn's span with its outcome and usage. */
  endTurn(outcome: TurnOutcome, usage: TurnUsage, at: number): void {
    for (const toolCallId of [...this.toolSpans.keys()]) this.endTool(toolCallId, undefined, true, undefined, at);
    const span = this.turnSpan;
    if (!span) return;
    guarded(() => {
      if (span.isRecording()) {
        const attributes: Attributes = {
          "turnkit.turn.outcome": outcome.kind,
          "turnkit.usage.cost": usage.total.cost.total,
        };
        setUsage(attributes, usage.total);
        span.setAttributes(attributes);
        if (outcome.kind === "failed") setError(span, outcome.error);
      }
      span.end(spanTime(at));
    });
  }
}

/**
 * A time of the runner's clock (`performance.now()`-like milliseconds) as
 * OpenTelemetry's `[seconds, nanoseconds]` since the epoch. Passing the
 * plain number would let OpenTelemetry guess its origin (and treat 0 as
 * "now"); with the system clock this is the real time, with a virtual
 * clock a fixed offset from the process start.
 */
export function spanTime(ms: number): HrTime {
  const epochMs = performance.timeOrigin + ms;
  let seconds = Math.floor(epochMs / 1000);
  let nanos = Math.round((epochMs - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

/** GenAI token counts: `gen_ai.usage.input_tokens` counts every input token, cached ones included. */
function setUsage(attributes: Attributes, usage: ProtocolUsage | undefined): void {
  if (!usage) return;
  attributes["gen_ai.usage.input_tokens"] = usage.input + usage.cacheRead + usage.cacheWrite;
  attributes["gen_ai.usage.output_tokens"] = usage.output;
  if (usage.cacheRead > 0) attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cacheRead;
  if (usage.cacheWrite > 0) attributes["gen_ai.usage.cache_creation.input_tokens"] = usage.cacheWrite;
}

function setError(span: Span, error: TurnError | undefined): void {
  if (!error) return;
  span.setAttribute("error.type", error.code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

/** Messages (or results) as JSON with every image described by its MIME type instead of its bytes. */
function contentJson(values: unknown[]): string {
  return safeJson(values, (_key, value: unknown) =>
    value && typeof value === "object" && (value as { type?: unknown }).type === "image" && "data" in value
      ? { type: "image", mimeType: (value as { mimeType?: unknown }).mimeType }
      : value,
  );
}

function safeJson(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  try {
    return JSON.stringify(value, replacer as never) ?? "null";
  } catch {
    return '"[unserialisable]"';
  }
}

function firstText(result: unknown): string | undefined {
  const content = (result as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  const text = content.find((block: { type?: unknown }) => block?.type === "text") as { text?: unknown } | undefined;
  return typeof text?.text === "string" ? text.text : undefined;
}

/** Runs tracer calls: whatever a host's tracer throws stays out of the turn. */
function guarded<T>(work: () => T): T | undefined {
  try {
    return work();
  } catch {
    return undefined;
  }
}
