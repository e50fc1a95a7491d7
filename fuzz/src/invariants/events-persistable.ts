/**
 * Invariant 20: a host can persist every event as it is. Each event the
 * writer was offered passes `@turnkit/protocol`'s own `validateRuntimeEvent`
 * and is plain JSON: no `NaN` or `Infinity` (JSON turns them into `null`),
 * no `undefined` inside a list, no function, bigint, symbol or cycle, so
 * what a store reads back equals what the turn emitted. Provider usage with
 * odd numbers (`reported-usage.ts`) and tools with odd details feed it.
 */
import { type RuntimeEvent, validateRuntimeEvent } from "@turnkit/protocol";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "20 events valid and JSON-safe";

/** Where `value` stops being plain JSON, or `undefined`. */
function jsonProblem(value: unknown, path: string, open: Set<unknown>): string | undefined {
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? undefined : `${path} is ${value}`;
    case "function":
    case "bigint":
    case "symbol":
      return `${path} is a ${typeof value}`;
    case "object": {
      if (value === null) return undefined;
      if (open.has(value)) return `${path} is a cycle`;
      open.add(value);
      let problem: string | undefined;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length && !problem; index++) {
          problem =
            value[index] === undefined
              ? `${path}[${index}] is undefined`
              : jsonProblem(value[index], `${path}[${index}]`, open);
        }
      } else {
        for (const [key, field] of Object.entries(value)) {
          problem = jsonProblem(field, `${path}.${key}`, open);
          if (problem) break;
        }
      }
      open.delete(value);
      return problem;
    }
    default:
      return undefined;
  }
}

export function checkEventsPersistable(events: readonly RuntimeEvent[]): void {
  for (const event of events) {
    const where = `seq ${event.seq} (${event.type})`;
    const validation = validateRuntimeEvent(event);
    if (!validation.ok) {
      const excerpt = (JSON.stringify(event.payload) ?? "").slice(0, 400);
      throw new InvariantViolation(INVARIANT, `${where}: ${validation.errors.slice(0, 3).join("; ")} in ${excerpt}`);
    }
    const problem = jsonProblem(event.payload, "payload", new Set());
    if (problem) throw new InvariantViolation(INVARIANT, `${where}: ${problem}`);
  }
}
