import { SpanStatusCode, type HrTime, type Tracer } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";

/** A tracer for the runner and a way to print what it recorded (`--trace`). */
export interface SpanRecorder {
  tracer: Tracer;
  /** The spans finished since the last call, as indented lines (a turn's tree), and forgets them. */
  takeTree(): string[];
}

/**
 * Records spans in memory with the OpenTelemetry SDK, so the example can
 * print each turn's tree; a real host sends them to a collector instead
 * (see docs/opentelemetry.md).
 */
export function createSpanRecorder(): SpanRecorder {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    tracer: provider.getTracer("coding-agent"),
    takeTree() {
      const spans = exporter.getFinishedSpans();
      exporter.reset();
      return spanTreeLines(spans);
    },
  };
}

/** `chat claude-sonnet-4-5 · 0.0–1.9 s · 1,840 in / 96 out · 2 attempts`, children indented under their parent, in start order. */
export function spanTreeLines(spans: readonly ReadableSpan[]): string[] {
  const lines: string[] = [];
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const roots = spans.filter((span) => !span.parentSpanContext || !ids.has(span.parentSpanContext.spanId));
  const visit = (span: ReadableSpan, depth: number, origin: HrTime) => {
    lines.push(`${"  ".repeat(depth)}${describeSpan(span, origin)}`);
    const children = spans
      .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => seconds(a.startTime, origin) - seconds(b.startTime, origin));
    for (const child of children) visit(child, depth + 1, origin);
  };
  for (const root of roots) visit(root, 0, root.startTime);
  return lines;
}

function describeSpan(span: ReadableSpan, origin: HrTime): string {
  const { attributes } = span;
  const parts = [
    span.name,
    `${seconds(span.startTime, origin).toFixed(1)}–${seconds(span.endTime, origin).toFixed(1)} s`,
  ];
  if (typeof attributes["gen_ai.usage.input_tokens"] === "number") {
    parts.push(
      `${attributes["gen_ai.usage.input_tokens"].toLocaleString("en-US")} in / ${String(attributes["gen_ai.usage.output_tokens"] ?? 0)} out`,
    );
  }
  const attempts = span.events.filter((event) => event.name === "turnkit.attempt").length;
  if (attempts > 1) parts.push(`${attempts} attempts`);
  if (span.status.code === SpanStatusCode.ERROR) parts.push(`error ${String(attributes["error.type"] ?? "")}`.trim());
  return parts.join(" · ");
}

function seconds(time: HrTime, origin: HrTime): number {
  return time[0] - origin[0] + (time[1] - origin[1]) / 1e9;
}
