/**
 * The validators and guards of untrusted data never throw: a value they
 * cannot read (a revoked proxy, a getter that throws, also deep in a
 * payload) is invalid, with one error line saying so, and a field JSON
 * cannot show (a bigint) is named by its type.
 */
import { describe, expect, it } from "vitest";
import {
  isProtocolAgentEvent,
  isRuntimeEvent,
  isRuntimeEventOfType,
  outcomeToStatus,
  validateActionAnswer,
  validateActionRequired,
  validateProtocolAgentEvent,
  validateRuntimeEvent,
  validateRuntimeWarning,
} from "../src/index.js";
import { event } from "./sample-events.js";

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function throwingGetter(field: string): object {
  return Object.defineProperty({}, field, {
    get: () => {
      throw new Error(`${field} getter failed`);
    },
    enumerable: true,
  });
}

const unreadable = { ok: false, errors: ["/: the value could not be read (a revoked proxy or a getter that throws)"] };

describe("checks of untrusted values that cannot be read", () => {
  const statusWithRevokedPayload = { ...event("session.status", { status: "running" }), payload: revoked() };
  it.each([
    ["a revoked proxy", revoked()],
    ["a getter that throws", throwingGetter("type")],
    ["an event whose payload is a revoked proxy", statusWithRevokedPayload],
  ])("validateRuntimeEvent and the guards answer for %s, never throwing", (_name, value) => {
    expect(validateRuntimeEvent(value)).toEqual(unreadable);
    expect(isRuntimeEvent(value)).toBe(false);
    expect(isRuntimeEventOfType(value, "session.status")).toBe(false);
    expect(validateProtocolAgentEvent(value)).toEqual(
      value === statusWithRevokedPayload ? { ok: false, errors: ["/type: not a known agent event type"] } : unreadable,
    );
    expect(isProtocolAgentEvent(value)).toBe(false);
  });

  it("the payload validators answer for a revoked proxy or a throwing getter", () => {
    for (const value of [revoked(), throwingGetter("kind"), throwingGetter("code")]) {
      expect(validateActionRequired(value)).toMatchObject({ ok: false });
      expect(validateRuntimeWarning(value)).toMatchObject({ ok: false });
      expect(validateActionAnswer("tool_approval", value)).toMatchObject({ ok: false });
    }
    expect(validateActionRequired(revoked())).toEqual(unreadable);
    expect(validateRuntimeWarning(revoked())).toEqual(unreadable);
  });

  it("names a field JSON cannot show by its type, and a kind that is a built-in key as no kind", () => {
    expect(validateRuntimeEvent({ type: 1n })).toMatchObject({ ok: false });
    expect((validateRuntimeEvent({ type: 1n }) as { errors: string[] }).errors[0]).toMatch(/got bigint$/);
    expect(validateRuntimeWarning({ code: 1n })).toMatchObject({ ok: false });
    expect((validateRuntimeWarning({ code: 1n }) as { errors: string[] }).errors[0]).toMatch(/got bigint$/);
    expect((validateActionRequired({ kind: 1n }) as { errors: string[] }).errors[0]).toMatch(/got bigint$/);
    for (const kind of ["constructor", "__proto__", "toString"])
      expect(validateActionAnswer(kind as never, { kind: "answered" })).toEqual({
        ok: false,
        errors: [`/: no answer exists for kind "${kind}"`],
      });
    expect(() => outcomeToStatus({ kind: 1n } as never)).toThrow(
      "outcomeToStatus: expected a turn outcome of kind completed, aborted or failed, got kind bigint",
    );
  });
});
