import { lazyTypeCheck, type LazyTypeCheck } from "./lazy-type-check.js";
import {
  RUNTIME_EVENT_TYPES,
  type RuntimeEvent,
  type RuntimeEventType,
  type TerminalStatusEvent,
} from "./runtime-event.js";
import {
  ElicitationRequiredPayloadSchema,
  RuntimeEventSchemas,
  ToolApprovalRequiredPayloadSchema,
} from "./runtime-event-schema.js";
import { isTerminalStatus } from "./turn-status.js";
import { UNREADABLE_VALUE_ERROR, readingUntrusted, shownField } from "./unreadable-values.js";

// One lazily compiled checker per event type: dispatching on `type` first
// gives precise errors (a plain union only says "expected union value").
const checkers = Object.fromEntries(
  RUNTIME_EVENT_TYPES.map((type) => [type, lazyTypeCheck(RuntimeEventSchemas[type])]),
) as { [K in RuntimeEventType]: LazyTypeCheck<(typeof RuntimeEventSchemas)[K]> };

// The payload of each `action.required` kind, for errors that name the field
// (the union of kinds alone would only say "expected union value").
const actionPayloadCheckers = {
  tool_approval: lazyTypeCheck(ToolApprovalRequiredPayloadSchema),
  elicitation: lazyTypeCheck(ElicitationRequiredPayloadSchema),
};

function schemaErrors(type: RuntimeEventType, value: unknown): string[] {
  const errors = checkers[type].errors(value);
  if (type !== "action.required") return errors;
  const payload = (value as { payload?: unknown }).payload;
  const kind = typeof payload === "object" && payload !== null ? (payload as { kind?: unknown }).kind : undefined;
  const payloadChecker = actionPayloadCheckers[kind as keyof typeof actionPayloadCheckers];
  if (payloadChecker === undefined || payloadChecker.check(payload)) return errors;
  return [
    ...errors.filter((error) => !error.startsWith("/payload")),
    ...payloadChecker.errors(payload).map((error) => `/payload${error.startsWith("/:") ? error.slice(1) : error}`),
  ];
}

function knownType(value: unknown): RuntimeEventType | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  return typeof type === "string" && (RUNTIME_EVENT_TYPES as readonly string[]).includes(type)
    ? (type as RuntimeEventType)
    : undefined;
}

// Rules the schema cannot express.
function semanticErrors(event: RuntimeEvent): string[] {
  if (event.type === "session.status" && event.payload.status === "failed") {
    const { code, budget } = event.payload.error;
    if ((code === "budget_exceeded") !== (budget !== undefined)) {
      return [`/payload/error/budget: must be present exactly when the code is budget_exceeded (code ${code})`];
    }
  }
  if (event.type === "message.persisted" && event.payload.messageIds !== undefined) {
    const { messageIds, messages } = event.payload;
    if (messageIds.length !== messages.length) {
      return [`/payload/messageIds: has ${messageIds.length} ids for ${messages.length} messages`];
    }
  }
  return [];
}

/** The result of {@link validateRuntimeEvent}. */
export type RuntimeEventValidation = { ok: true; event: RuntimeEvent } | { ok: false; errors: string[] };

/**
 * Validates an untrusted value as a {@link RuntimeEvent}: the schema id, the
 * envelope, the payload of its `type`, and the rules a schema cannot express
 * (index-aligned `messageIds`; a failed status's `error.budget` present
 * exactly for code `budget_exceeded`). Never throws; on failure `errors` lists
 * readable `/path: problem` lines (the first 50 the schema finds). It checks one event, so per-turn rules
 * (monotonic `seq`, one terminal status last) are the caller's.
 */
export function validateRuntimeEvent(value: unknown): RuntimeEventValidation {
  return readingUntrusted(() => validateEvent(value), { ok: false, errors: [UNREADABLE_VALUE_ERROR] });
}

function validateEvent(value: unknown): RuntimeEventValidation {
  const type = knownType(value);
  if (type === undefined) {
    const got =
      typeof value === "object" && value !== null ? shownField((value as { type?: unknown }).type) : typeof value;
    return { ok: false, errors: [`/type: expected one of ${RUNTIME_EVENT_TYPES.join(", ")}, got ${got}`] };
  }
  const checker = checkers[type];
  if (!checker.check(value)) return { ok: false, errors: schemaErrors(type, value) };
  const event = value as RuntimeEvent;
  const errors = semanticErrors(event);
  return errors.length === 0 ? { ok: true, event } : { ok: false, errors };
}

/**
 * True when `value` is a valid {@link RuntimeEvent} (see
 * {@link validateRuntimeEvent} for what is checked). Never throws. The
 * TypeBox checkers are compiled once, on first use.
 */
export function isRuntimeEvent(value: unknown): value is RuntimeEvent {
  return readingUntrusted(() => {
    const type = knownType(value);
    return type !== undefined && checkers[type].check(value) && semanticErrors(value as RuntimeEvent).length === 0;
  }, false);
}

/** True when `value` is a valid {@link RuntimeEvent} of the given `type`. Never throws. */
export function isRuntimeEventOfType<TType extends RuntimeEventType>(
  value: unknown,
  type: TType,
): value is RuntimeEvent<TType> {
  return readingUntrusted(() => knownType(value) === type, false) && isRuntimeEvent(value);
}

/**
 * True when `event` is a `session.status` event with a terminal status: the
 * last event of its turn. A sub-agent's terminal status passed on to its
 * parent's stream (an event with `origin`) is not: the parent's turn goes
 * on. False for anything that is no object. Otherwise trusts `event` to be
 * a RuntimeEvent; use {@link isRuntimeEvent} first on untrusted data.
 */
export function isTerminalEvent(event: RuntimeEvent): event is TerminalStatusEvent {
  if (typeof event !== "object" || event === null) return false;
  return readingUntrusted(
    () => event.type === "session.status" && event.origin === undefined && isTerminalStatus(event.payload?.status),
    false,
  );
}
