import { formatTrace } from "./trace-diff.js";
import type { Trace } from "./trace-normaliser.js";

/** Thrown by the trace assertions; the message lists the whole trace. */
export class TraceAssertionError extends Error {
  override readonly name = "TraceAssertionError";
}

function fail(message: string, trace: Trace): never {
  throw new TraceAssertionError(`${message}\n\ntrace:\n${formatTrace(trace)}`);
}

/**
 * Each expected line occurs in the trace, in this order (other lines may
 * come between). A line matches when it is equal, or, for an expected line
 * ending in `…`, when it starts with the text before the `…`.
 */
export function assertLinesInOrder(trace: Trace, expected: readonly string[]): void {
  let from = 0;
  for (const wanted of expected) {
    const prefix = wanted.endsWith("…") ? wanted.slice(0, -1) : undefined;
    const index = trace.findIndex(
      (line, position) => position >= from && (prefix === undefined ? line === wanted : line.startsWith(prefix)),
    );
    if (index < 0) fail(`expected, after line ${from}, the line:\n  ${wanted}`, trace);
    from = index + 1;
  }
}

/** No line of the trace starts with `prefix`. */
export function assertNoLine(trace: Trace, prefix: string): void {
  const index = trace.findIndex((line) => line.startsWith(prefix));
  if (index >= 0) fail(`expected no line starting with:\n  ${prefix}\nfound line ${index + 1}`, trace);
}

/** Exactly `count` lines start with `prefix`. */
export function assertLineCount(trace: Trace, prefix: string, count: number): void {
  const found = trace.filter((line) => line.startsWith(prefix)).length;
  if (found !== count) fail(`expected ${count} line(s) starting with:\n  ${prefix}\nfound ${found}`, trace);
}
