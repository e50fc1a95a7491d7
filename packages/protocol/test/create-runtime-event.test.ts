import { describe, expect, expectTypeOf, it } from "vitest";
import { RUNTIME_EVENT_SCHEMA, createRuntimeEvent, isRuntimeEvent, type RuntimeEvent } from "../src/index.js";

describe("createRuntimeEvent", () => {
  it("fills the schema id and keeps every envelope field", () => {
    const event = createRuntimeEvent({
      eventId: "e1",
      sessionId: "s1",
      turnId: "t1",
      seq: 0,
      type: "session.status",
      payload: { status: "running" },
    });
    expect(event).toEqual({
      schema: RUNTIME_EVENT_SCHEMA,
      eventId: "e1",
      sessionId: "s1",
      turnId: "t1",
      seq: 0,
      type: "session.status",
      payload: { status: "running" },
    });
    expect(isRuntimeEvent(event)).toBe(true);
  });

  it("produces events the guard accepts, for every type", () => {
    const base = { eventId: "e", sessionId: "s", turnId: "t" };
    const events: RuntimeEvent[] = [
      createRuntimeEvent({ ...base, seq: 0, type: "session.status", payload: { status: "running" } }),
      createRuntimeEvent({
        ...base,
        seq: 1,
        type: "stream.resp",
        payload: { messageId: "m", chunkIndex: 0, chunk: { kind: "text", delta: "a" } },
      }),
      createRuntimeEvent({
        ...base,
        seq: 2,
        type: "debug.trace",
        payload: { phase: "turn_end", level: "debug", message: "step" },
      }),
      createRuntimeEvent({
        ...base,
        seq: 3,
        type: "message.persisted",
        payload: { reason: "messageDelta", messages: [] },
      }),
      createRuntimeEvent({ ...base, seq: 4, type: "session.status", payload: { status: "aborted" } }),
    ];
    expect(events.every(isRuntimeEvent)).toBe(true);
  });

  it("drops fields outside the envelope and cannot be given another schema id", () => {
    const init = {
      eventId: "e",
      sessionId: "s",
      turnId: "t",
      seq: 0,
      type: "session.status" as const,
      payload: { status: "running" as const },
    };
    const event = createRuntimeEvent({ ...init, schema: "other", extra: true } as typeof init);
    expect(event.schema).toBe(RUNTIME_EVENT_SCHEMA);
    expect(event).not.toHaveProperty("extra");
  });

  it("is typed by the event type it is given", () => {
    const event = createRuntimeEvent({
      eventId: "e",
      sessionId: "s",
      turnId: "t",
      seq: 0,
      type: "debug.trace",
      payload: { phase: "p", level: "info", message: "m" },
    });
    expectTypeOf(event).toEqualTypeOf<RuntimeEvent<"debug.trace">>();
    expectTypeOf(event.payload.phase).toEqualTypeOf<string>();
    createRuntimeEvent({
      eventId: "e",
      sessionId: "s",
      turnId: "t",
      seq: 0,
      type: "debug.trace",
      // @ts-expect-error a session.status payload does not fit a debug.trace event
      payload: { status: "running" },
    });
    createRuntimeEvent({
      eventId: "e",
      sessionId: "s",
      turnId: "t",
      seq: 0,
      type: "session.status",
      // @ts-expect-error failed requires an error
      payload: { status: "failed" },
    });
  });
});
