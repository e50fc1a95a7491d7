import { describe, expect, it } from "vitest";
import {
  createRuntimeEvent,
  isRuntimeEvent,
  isTerminalEvent,
  outcomeToStatus,
  type TurnOutcome,
} from "../src/index.js";

describe("outcomeToStatus", () => {
  it("maps completed to a completed status without error", () => {
    expect(outcomeToStatus({ kind: "completed" })).toEqual({ status: "completed" });
  });

  it("maps aborted to an aborted status without error", () => {
    expect(outcomeToStatus({ kind: "aborted" })).toEqual({ status: "aborted" });
  });

  it("maps failed to a failed status carrying the classified error, copied", () => {
    const outcome: TurnOutcome = {
      kind: "failed",
      message: "The provider is overloaded",
      error: { code: "upstream", message: "529 overloaded" },
    };
    const status = outcomeToStatus(outcome);
    expect(status).toEqual({ status: "failed", error: { code: "upstream", message: "529 overloaded" } });
    expect(status.error).not.toBe(outcome.error);
  });

  it.each<TurnOutcome>([
    { kind: "completed" },
    { kind: "aborted" },
    { kind: "failed", message: "m", error: { code: "timeout", message: "idle timeout" } },
  ])("gives a terminal status event the guard accepts for $kind", (outcome) => {
    const event = createRuntimeEvent({
      eventId: "e9",
      sessionId: "s",
      turnId: "t",
      seq: 9,
      type: "session.status",
      payload: outcomeToStatus(outcome),
    });
    expect(isRuntimeEvent(event)).toBe(true);
    expect(isTerminalEvent(event)).toBe(true);
  });

  it("throws on an outcome kind it does not know", () => {
    expect(() => outcomeToStatus({ kind: "paused" } as unknown as TurnOutcome)).toThrow(/paused/);
  });
});

describe("messages handed back in an outcome", () => {
  it("any kind may carry undeliveredMessages; the terminal status carries them too, in a new array the guard accepts", () => {
    const handedBack = [{ role: "user" as const, content: "also check the tests", timestamp: 1 }];
    const outcomes: TurnOutcome[] = [
      { kind: "completed", undeliveredMessages: handedBack },
      { kind: "aborted", undeliveredMessages: handedBack },
      { kind: "failed", message: "m", error: { code: "internal", message: "m" }, undeliveredMessages: handedBack },
    ];
    for (const outcome of outcomes) {
      expect(outcome.undeliveredMessages).toEqual(handedBack);
      const status = outcomeToStatus(outcome);
      expect(status.undeliveredMessages).toEqual(handedBack);
      expect(status.undeliveredMessages).not.toBe(outcome.undeliveredMessages);
      const event = createRuntimeEvent({
        eventId: "e9",
        sessionId: "s",
        turnId: "t",
        seq: 9,
        type: "session.status",
        payload: status,
      });
      expect(isRuntimeEvent(event)).toBe(true);
    }
  });

  it("an outcome without messages to hand back gives a status without the field", () => {
    expect(outcomeToStatus({ kind: "completed" })).not.toHaveProperty("undeliveredMessages");
  });

  it("the guard rejects a terminal status whose undeliveredMessages are not messages", () => {
    const event = createRuntimeEvent({
      eventId: "e9",
      sessionId: "s",
      turnId: "t",
      seq: 9,
      type: "session.status",
      payload: { status: "aborted" },
    });
    expect(
      isRuntimeEvent({ ...event, payload: { status: "aborted", undeliveredMessages: [{ text: "not a message" }] } }),
    ).toBe(false);
    expect(isRuntimeEvent({ ...event, payload: { status: "aborted", undeliveredMessages: "also this" } })).toBe(false);
  });

  it("refuses what is no turn outcome with a TypeError saying what it got", () => {
    for (const [value, got] of [
      [null, "null"],
      [undefined, "undefined"],
      [{}, "kind undefined"],
      [{ kind: "done" }, 'kind "done"'],
    ] as const) {
      expect(() => outcomeToStatus(value as never)).toThrow(
        new TypeError(`outcomeToStatus: expected a turn outcome of kind completed, aborted or failed, got ${got}`),
      );
    }
  });
});
