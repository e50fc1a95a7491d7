import { PROTOCOL_AGENT_EVENT_TYPES, type ProtocolAgentEvent } from "./agent-event.js";
import { ProtocolAgentEventSchemas } from "./agent-event-schema.js";
import { lazyTypeCheck, type LazyTypeCheck } from "./lazy-type-check.js";
import type { ProtocolCustomMessage } from "./messages.js";
import { UNREADABLE_VALUE_ERROR, readingUntrusted } from "./unreadable-values.js";

type Schemas = typeof ProtocolAgentEventSchemas;

// One lazily compiled checker per event type: dispatching on `type` first
// gives precise errors (a plain union only says "expected union value").
const checkers = Object.fromEntries(
  PROTOCOL_AGENT_EVENT_TYPES.map((type) => [type, lazyTypeCheck(ProtocolAgentEventSchemas[type])]),
) as { [K in keyof Schemas]: LazyTypeCheck<Schemas[K]> };

function checkerFor(value: unknown): LazyTypeCheck<Schemas[keyof Schemas]> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  return typeof type === "string" && Object.hasOwn(checkers, type) ? checkers[type as keyof Schemas] : undefined;
}

/**
 * True when `value` has the shape of a loop event (any of the ten types,
 * custom messages allowed). For hosts that receive loop events across a
 * process or package boundary. Never throws; the checkers are compiled once,
 * on first use.
 */
export function isProtocolAgentEvent(value: unknown): value is ProtocolAgentEvent<ProtocolCustomMessage> {
  return readingUntrusted(() => checkerFor(value)?.check(value) ?? false, false);
}

/** The result of {@link validateProtocolAgentEvent}. */
export type ProtocolAgentEventValidation =
  | { ok: true; event: ProtocolAgentEvent<ProtocolCustomMessage> }
  | { ok: false; errors: string[] };

/**
 * Validates an untrusted value as a loop event, like
 * {@link isProtocolAgentEvent}, but on failure lists readable
 * `/path: problem` lines. Never throws.
 */
export function validateProtocolAgentEvent(value: unknown): ProtocolAgentEventValidation {
  return readingUntrusted(() => validateAgentEvent(value), { ok: false, errors: [UNREADABLE_VALUE_ERROR] });
}

function validateAgentEvent(value: unknown): ProtocolAgentEventValidation {
  const checker = checkerFor(value);
  if (checker === undefined) return { ok: false, errors: ["/type: not a known agent event type"] };
  return checker.check(value) ? { ok: true, event: value } : { ok: false, errors: checker.errors(value) };
}
