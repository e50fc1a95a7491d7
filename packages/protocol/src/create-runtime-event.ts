import type { EventOrigin } from "./event-origin.js";
import {
  RUNTIME_EVENT_SCHEMA,
  type RuntimeEvent,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
} from "./runtime-event.js";
import { readingUntrusted } from "./unreadable-values.js";

/** What {@link createRuntimeEvent} needs: every envelope field except `schema`. */
export interface RuntimeEventInit<TType extends RuntimeEventType> {
  /** The event's id from the host's allocator; the caller keeps it unique per event. */
  eventId: string;
  /** The host session of the turn. */
  sessionId: string;
  /** The turn that emits the event. */
  turnId: string;
  /** Position in the turn; the caller makes it strictly increase across all event types. */
  seq: number;
  /** Which event; selects the type of `payload`. */
  type: TType;
  /** The event's data, kept by reference (not copied or checked). */
  payload: RuntimeEventPayloadMap[TType];
  /** Which sub-agent turn emitted the event, for an event passed on from a sub-agent; kept by reference. */
  origin?: EventOrigin;
}

/**
 * Builds a {@link RuntimeEvent}, filling `schema` with
 * {@link RUNTIME_EVENT_SCHEMA}. Copies only the envelope fields (extra
 * properties of `init` are dropped) and keeps `payload` by reference. It does
 * not validate or allocate ids or `seq`: those come from the caller, who owns
 * their uniqueness and order. Throws a `TypeError` when `init` is no object.
 */
export function createRuntimeEvent<TType extends RuntimeEventType>(init: RuntimeEventInit<TType>): RuntimeEvent<TType> {
  if (typeof init !== "object" || init === null)
    throw new TypeError(`createRuntimeEvent: init must be an object, got ${init === null ? "null" : typeof init}`);
  if (readingUntrusted(() => (Array.isArray(init), false), true))
    throw new TypeError("createRuntimeEvent: init could not be read (a revoked proxy)");
  const event = {
    schema: RUNTIME_EVENT_SCHEMA,
    eventId: init.eventId,
    sessionId: init.sessionId,
    turnId: init.turnId,
    seq: init.seq,
    type: init.type,
    payload: init.payload,
    ...(init.origin !== undefined && { origin: init.origin }),
  };
  return event as RuntimeEvent<TType>;
}
