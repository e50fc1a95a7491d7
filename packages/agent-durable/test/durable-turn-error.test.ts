import { TurnkitError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import { DurableTurnError, DurableTurnErrorCode } from "../src/index.js";

describe("DurableTurnError", () => {
  it("is a TurnkitError with a stable code, recognised across package copies by its Symbol.for marker", () => {
    const cause = new Error("connection refused");
    const error = new DurableTurnError({ code: DurableTurnErrorCode.LogWrite, message: "the log is down", cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "DurableTurnError", code: "log_write", message: "the log is down", cause });
    expect(DurableTurnError.isInstance(error)).toBe(true);
    expect(TurnkitError.isInstance(error)).toBe(true);
    // What another copy of the package would build: a TurnkitError with the same marker.
    const copy = Object.assign(new TurnkitError("unknown_turn", "no such turn"), {
      [Symbol.for("turnkit.agent-durable.DurableTurnError")]: true,
    });
    expect(DurableTurnError.isInstance(copy)).toBe(true);
    expect(DurableTurnError.isInstance(new TurnkitError("unknown_turn", "no such turn"))).toBe(false);
    expect(DurableTurnError.isInstance({ code: "unknown_turn" })).toBe(false);
    expect(DurableTurnError.isInstance(null)).toBe(false);
  });
});
