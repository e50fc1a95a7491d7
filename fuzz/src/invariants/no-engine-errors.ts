/**
 * Invariant 23: a failure says what was wrong, never how the runner's own
 * code tripped over it. No event and no outcome carries a JavaScript
 * engine's `TypeError` text ("Cannot read properties of null", "x is not a
 * function", ...): such a text means a malformed value (from the model, a
 * stream function or a host) went unchecked until the runner's code failed
 * on it, instead of being refused where it came in, naming the field. The
 * generated models stream malformed events now and then
 * (`src/scripted-entries.ts`, `withMalformedEvents`), an `Agent`'s
 * `transformContext` now and then answers no list, tools return details
 * nested deeper than any stack, with a revoked proxy (`oddDetails`), and a
 * response's usage now and then cannot be read (`withUnreadableUsage`), to
 * feed it.
 */
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "23 failures name the field, not an engine error";

/**
 * V8's texts for a property read of null or undefined, a call of a
 * non-function, a spread of a non-iterable, a value JSON cannot write, a
 * revoked proxy, an object or a symbol with no way to become text or a
 * number, and a recursion that ran out of stack.
 */
const ENGINE_TEXTS = [
  /Cannot read properties of (null|undefined)/,
  /Cannot set properties of (null|undefined)/,
  /Cannot destructure/,
  /is not a function/,
  /is not iterable/,
  /Cannot convert undefined or null to object/,
  /Maximum call stack size exceeded/,
  /Converting circular structure to JSON/,
  /Do not know how to serialize a BigInt/,
  /on a proxy that has been revoked/,
  /Cannot convert object to primitive value/,
  /Cannot convert a Symbol value/,
];

/** The engine's text in `value` (as JSON) with what surrounds it, or `undefined` when it has none. */
export function engineText(value: unknown): string | undefined {
  const text = JSON.stringify(value) ?? "";
  for (const pattern of ENGINE_TEXTS) {
    const found = pattern.exec(text);
    if (found) return text.slice(Math.max(0, found.index - 80), found.index + 120);
  }
  return undefined;
}

/** The same for an `Agent` run: no message of its transcript carries such a text. */
export function checkNoEngineErrorsInTranscript(transcript: readonly unknown[]): void {
  for (const [index, message] of transcript.entries()) {
    const found = engineText(message);
    if (found) throw new InvariantViolation(INVARIANT, `transcript[${index}]: …${found}…`);
  }
}

/** Throws the invariant's violation when an event of the turn, or its outcome, carries such a text. */
export function checkNoEngineErrors(events: readonly RuntimeEvent[], outcome: TurnOutcome): void {
  for (const event of events) {
    const found = engineText(event.payload);
    if (found) throw new InvariantViolation(INVARIANT, `seq ${event.seq} (${event.type}): …${found}…`);
  }
  const found = engineText(outcome);
  if (found) throw new InvariantViolation(INVARIANT, `the outcome: …${found}…`);
}
