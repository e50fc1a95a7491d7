import type { DebugTracePayload, RuntimeEvent, RuntimeEventType, StreamChunk, TraceLevel } from "@turnkit/protocol";
import { assertFunctionArgument, assertObjectArgument } from "@turnkit/agent-loop/internal";
import type { EventWriter } from "../event-bridge/serial-event-queue.js";
import { describeValue } from "../messages/content-checks.js";

/** Options of {@link createRecordingEventWriter}. */
export interface RecordingEventWriterOptions {
  /**
   * Makes `push` asynchronous: each event is recorded, then `push` resolves
   * after this many microtask turns. Default 0 (synchronous writer).
   */
  asyncTicks?: number;
  /** Called with each event after it is recorded (e.g. to print it). Its throw is the writer's throw. */
  onEvent?: (event: RuntimeEvent) => void | Promise<void>;
}

/**
 * An {@link EventWriter} that keeps every event it is given, with small
 * queries for assertions. What a host uses in place of its real sink when it
 * tests its own hooks and tools.
 */
export interface RecordingEventWriter extends EventWriter {
  /** Every event pushed, in push order (the array grows). */
  readonly events: readonly RuntimeEvent[];
  /** The events of one type, in order. */
  ofType<TType extends RuntimeEventType>(type: TType): RuntimeEvent<TType>[];
  /** The `session.status` values, in order (e.g. `["running", "completed"]`). */
  statuses(): string[];
  /** The `stream.resp` chunks of one assistant message id, in `chunkIndex` order. */
  chunksOf(messageId: string): StreamChunk[];
  /** Assistant message ids in the order their first chunk arrived. */
  messageIds(): string[];
  /** The concatenated text deltas of one message (default: of every message, joined with newlines). */
  text(messageId?: string): string;
  /** `debug.trace` messages at `level` (default: every level), in order. */
  traces(level?: TraceLevel): DebugTracePayload[];
}

/**
 * Creates a {@link RecordingEventWriter}. Never throws on its own; an
 * `onEvent` that throws makes `push` throw (or reject, with `asyncTicks`),
 * which is how a test simulates a failing host sink. Throws a `TypeError`
 * naming the argument when `options` (when given) is no object, its
 * `asyncTicks` no non-negative integer or its `onEvent` no function.
 */
export function createRecordingEventWriter(options: RecordingEventWriterOptions = {}): RecordingEventWriter {
  assertWriterOptions(options);
  const events: RuntimeEvent[] = [];
  const ticks = options.asyncTicks ?? 0;
  const ofType = <TType extends RuntimeEventType>(type: TType): RuntimeEvent<TType>[] =>
    events.filter((event) => event.type === type) as RuntimeEvent<TType>[];
  const chunksOf = (messageId: string) =>
    ofType("stream.resp")
      .filter((event) => event.payload.messageId === messageId)
      .sort((a, b) => a.payload.chunkIndex - b.payload.chunkIndex)
      .map((event) => event.payload.chunk);
  const messageIds = () => [...new Set(ofType("stream.resp").map((event) => event.payload.messageId))];
  const textOf = (messageId: string) =>
    chunksOf(messageId)
      .map((chunk) => (chunk.kind === "text" ? chunk.delta : ""))
      .join("");

  return {
    events,
    push(event) {
      events.push(event);
      if (ticks === 0) return options.onEvent?.(event);
      return (async () => {
        for (let turn = 0; turn < ticks; turn++) await Promise.resolve();
        await options.onEvent?.(event);
      })();
    },
    ofType,
    statuses: () => ofType("session.status").map((event) => event.payload.status),
    chunksOf,
    messageIds,
    text: (messageId) =>
      messageId !== undefined
        ? textOf(messageId)
        : messageIds()
            .map(textOf)
            .filter((text) => text !== "")
            .join("\n"),
    traces: (level) =>
      ofType("debug.trace")
        .map((event) => event.payload)
        .filter((payload) => level === undefined || payload.level === level),
  };
}

function assertWriterOptions(options: unknown): void {
  const where = "createRecordingEventWriter";
  assertObjectArgument(options, where, "options");
  const { asyncTicks, onEvent } = options as Record<string, unknown>;
  if (asyncTicks !== undefined && !(Number.isInteger(asyncTicks) && (asyncTicks as number) >= 0))
    throw new TypeError(
      `${where}: options.asyncTicks must be a non-negative integer, got ${describeValue(asyncTicks)}`,
    );
  if (onEvent !== undefined) assertFunctionArgument(onEvent, where, "options.onEvent");
}
