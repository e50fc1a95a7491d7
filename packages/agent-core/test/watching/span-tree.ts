import { type HrTime, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

const millis = (time: HrTime, origin: HrTime) => Math.round((time[0] - origin[0]) * 1000 + (time[1] - origin[1]) / 1e6);

/**
 * Finished spans as an indented tree, one line per span (children in start
 * order), then one line per event: times in ms from the root's start,
 * status, and the attributes that matter to a reader.
 */
export function spanTree(spans: readonly ReadableSpan[]): string[] {
  const root = spans.find((span) => !span.parentSpanContext);
  if (!root) return [];
  const origin = root.startTime;
  const lines: string[] = [];
  const visit = (span: ReadableSpan, depth: number) => {
    const indent = "  ".repeat(depth);
    const status =
      span.status.code === SpanStatusCode.ERROR
        ? ` ERROR(${span.attributes["error.type"]}: ${span.status.message})`
        : "";
    const attributes = Object.entries(span.attributes)
      .filter(([key]) => key !== "error.type")
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .sort()
      .join(" ");
    lines.push(
      `${indent}${span.name} [${SpanKind[span.kind]}] ${millis(span.startTime, origin)}-${millis(span.endTime, origin)}ms${status} ${attributes}`,
    );
    for (const event of span.events) {
      const eventAttributes = Object.entries(event.attributes ?? {})
        .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
        .join(" ");
      lines.push(`${indent}  @${millis(event.time, origin)}ms ${event.name} ${eventAttributes}`);
    }
    const children = spans
      .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => millis(a.startTime, origin) - millis(b.startTime, origin) || a.name.localeCompare(b.name));
    for (const child of children) visit(child, depth + 1);
  };
  visit(root, 0);
  return lines;
}
