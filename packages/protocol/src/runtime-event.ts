import type { ActionRequiredPayload } from "./action-required.js";
import type { EventOrigin } from "./event-origin.js";
import type { ProtocolAnyMessage } from "./messages.js";
import type { RuntimeWarningPayload } from "./runtime-warning.js";
import type { StreamChunk } from "./stream-chunk.js";
import type { TurnError, TurnOutcomeHandBack } from "./turn-outcome.js";
import type { TerminalTurnStatus, TurnStatus } from "./turn-status.js";
import type { TurnReport } from "./turn-report.js";

/**
 * The schema id every {@link RuntimeEvent} carries. A breaking change to the
 * envelope or a payload gets a new id; additive changes (new optional fields,
 * new error codes) keep it.
 */
export const RUNTIME_EVENT_SCHEMA = "turnkit.runtime-event/v1";

/** The type of {@link RUNTIME_EVENT_SCHEMA}. */
export type RuntimeEventSchemaId = typeof RUNTIME_EVENT_SCHEMA;

/**
 * Payload of `stream.resp`: one chunk of one assistant message.
 * `messageId` is allocated by the host before the first chunk;
 * `chunkIndex` starts at 0 for each message and strictly increases with
 * each chunk of that message.
 */
export interface StreamRespPayload {
  /** Host id of the assistant message; the same for every chunk of it. */
  messageId: string;
  /** 0 for the message's first chunk, then strictly increasing. */
  chunkIndex: number;
  /** The piece of the message this event carries. */
  chunk: StreamChunk;
}

/** A `session.status` payload for a status other than `failed`; it never carries an error. */
export interface SessionStatusOkPayload extends TurnReport, TurnOutcomeHandBack {
  /** The turn's new status. */
  status: Exclude<TurnStatus, "failed">;
  /** Never present. */
  error?: undefined;
}

/** A `session.status` payload for a failed turn; `error` says why. */
export interface SessionStatusFailedPayload extends TurnReport, TurnOutcomeHandBack {
  /** The turn failed; a terminal status. */
  status: "failed";
  /** Why: a stable code and a message. */
  error: TurnError;
}

/** Payload of `session.status`: `error` is present exactly when `status` is `failed`. */
export type SessionStatusPayload = SessionStatusOkPayload | SessionStatusFailedPayload;

/** A {@link SessionStatusPayload} with a terminal status. */
export type TerminalSessionStatusPayload =
  | ({ status: Exclude<TerminalTurnStatus, "failed">; error?: undefined } & TurnReport & TurnOutcomeHandBack)
  | SessionStatusFailedPayload;

/** Severity of a `debug.trace` event. */
export type TraceLevel = "debug" | "info" | "warn" | "error";

/**
 * Payload of `debug.trace`: a diagnostic a host may log or drop; it never
 * changes the turn. `phase` names where it came from (e.g. `agent_start`,
 * `turn_end`, `tool_execution_update`, `llm.retry`). `attrs` is JSON-safe.
 */
export interface DebugTracePayload {
  /** Where the diagnostic came from; an open string. */
  phase: string;
  /** Its severity. */
  level: TraceLevel;
  /** Human-readable text. */
  message: string;
  /** JSON-safe structured data for logs. */
  attrs?: Record<string, unknown>;
}

/**
 * Why messages were persisted: `messageDelta` appends new
 * messages to the stored history; `replaceMessages` replaces it in full
 * (e.g. after compaction).
 */
export type MessagePersistedReason = "messageDelta" | "replaceMessages";

/**
 * Payload of `message.persisted`: transcript messages the turn handed to the
 * host's history. `messages` may include host-defined custom messages.
 * `messageIds`, when present, has one host id per message, index-aligned.
 */
export interface MessagePersistedPayload {
  /** Append to the stored history, or replace it in full. */
  reason: MessagePersistedReason;
  /** The new messages in order, or with `replaceMessages` the whole new history. */
  messages: ProtocolAnyMessage[];
  /** One host id per message, index-aligned, when the host assigned ids. */
  messageIds?: string[];
}

/** The payload type of each {@link RuntimeEventType}. */
export type RuntimeEventPayloadMap = {
  /** One chunk of an assistant message. */
  "stream.resp": StreamRespPayload;
  /** A status change of the turn; the last one is terminal. */
  "session.status": SessionStatusPayload;
  /** A diagnostic that never changes the turn. */
  "debug.trace": DebugTracePayload;
  /** Messages handed to the host's history. */
  "message.persisted": MessagePersistedPayload;
  /** The turn waits for a person's answer (a tool call to approve, input an MCP server asked for). */
  "action.required": ActionRequiredPayload;
  /** Something went wrong and the turn recovered or went on (a retry wait, dropped images). */
  "runtime.warning": RuntimeWarningPayload;
};

/** The `type` of a {@link RuntimeEvent}. */
export type RuntimeEventType = keyof RuntimeEventPayloadMap;

// A Record forces every event type to be listed (the compiler names a missing one).
const RUNTIME_EVENT_TYPE_ORDER = {
  "stream.resp": 0,
  "session.status": 1,
  "debug.trace": 2,
  "message.persisted": 3,
  "action.required": 4,
  "runtime.warning": 5,
} satisfies Record<RuntimeEventType, number>;

/** Every {@link RuntimeEventType}, each once. */
export const RUNTIME_EVENT_TYPES: readonly RuntimeEventType[] = Object.freeze(
  Object.keys(RUNTIME_EVENT_TYPE_ORDER) as RuntimeEventType[],
);

/**
 * The envelope shared by every runtime event.
 *
 * - `eventId`, `sessionId`, `turnId` come from the host (or its allocator);
 *   `eventId` is unique per event.
 * - `seq` is a non-negative integer that strictly increases with each event
 *   of a turn, across all event types, so a consumer can order events
 *   without timestamps.
 * - `origin` is present exactly on the events a turn passes on from its
 *   sub-agents (see {@link EventOrigin}).
 */
export interface RuntimeEventEnvelope<TType extends RuntimeEventType, TPayload = RuntimeEventPayloadMap[TType]> {
  /** Always {@link RUNTIME_EVENT_SCHEMA}. */
  schema: RuntimeEventSchemaId;
  /** Unique per event. */
  eventId: string;
  /** The host session of the turn. */
  sessionId: string;
  /** The turn that emitted the event. */
  turnId: string;
  /** Position of the event in its turn; strictly increasing across all types. */
  seq: number;
  /** Which event; selects the type of `payload`. */
  type: TType;
  /** The event's data. */
  payload: TPayload;
  /** Set when a sub-agent turn emitted the event: which one, and its own `seq` there. Absent on the turn's own events. */
  origin?: EventOrigin;
}

/**
 * What a turn emits to its host's event writer: a discriminated union on
 * `type`, so a `switch (event.type)` narrows `payload`.
 *
 * Per turn: `seq` is monotonic; the first event is `session.status`
 * `running`; exactly one terminal `session.status` is emitted, and it is the
 * last event. `RuntimeEvent<"stream.resp">` selects one member.
 */
export type RuntimeEvent<TType extends RuntimeEventType = RuntimeEventType> = {
  [K in TType]: RuntimeEventEnvelope<K>;
}[TType];

/**
 * A `stream.resp` event: one chunk of one assistant message. The chunks of a
 * message share its `messageId` and come with `chunkIndex` 0, 1, 2, ... in
 * `seq` order. Nothing follows a message's `finish` chunk; its `error` is
 * there exactly when the reason is `error`. A message cut short by an abort
 * may end without one.
 */
export type StreamRespEvent = RuntimeEvent<"stream.resp">;
/**
 * A `session.status` event: the turn's status changed. The first event of a
 * turn is one with `running`; exactly one has a terminal status, and it is
 * the turn's last event. `payload.error` is present exactly when the status
 * is `failed`.
 */
export type SessionStatusEvent = RuntimeEvent<"session.status">;
/**
 * A `debug.trace` event: a diagnostic the host may log or drop. It never
 * changes the turn, and a turn is correct whether or not the host reads it.
 */
export type DebugTraceEvent = RuntimeEvent<"debug.trace">;
/**
 * A `message.persisted` event: messages handed to the host's history, to
 * append (`messageDelta`) or to replace the stored history with
 * (`replaceMessages`). `messageIds`, when present, is index-aligned with
 * `messages`.
 */
export type MessagePersistedEvent = RuntimeEvent<"message.persisted">;
/**
 * A `runtime.warning` event: something went wrong and the turn recovered or
 * went on (a retry wait, dropped images). It never changes the turn; a
 * failure that ends the turn is a `failed` `session.status` instead.
 */
export type RuntimeWarningEvent = RuntimeEvent<"runtime.warning">;
/** A `session.status` event with a terminal status: the last event of a turn. */
export type TerminalStatusEvent = RuntimeEventEnvelope<"session.status", TerminalSessionStatusPayload>;
