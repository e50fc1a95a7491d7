import { TurnkitError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import { DurableTurnError, DurableTurnErrorCode, idempotencyKeyOf } from "../src/index.js";
import { workflowFailure } from "../src/errors.js";

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

  it("is what outcome() rejects with for DBOS's error of a failed workflow, its code kept when it was one", () => {
    // DBOS stores a workflow's error as plain data: it comes back with its name, message and code, not its marker.
    const stored = Object.assign(new Error("the log is down"), { name: "DurableTurnError", code: "log_write" });
    const kept = workflowFailure(stored);
    expect(DurableTurnError.isInstance(kept)).toBe(true);
    expect(kept).toMatchObject({ code: "log_write", message: "the log is down", cause: stored });
    const cancelled = new Error("Awaited workflow was cancelled");
    expect(workflowFailure(cancelled)).toMatchObject({
      code: "workflow_failed",
      message: "The turn's workflow ended without an outcome: Awaited workflow was cancelled",
      cause: cancelled,
    });
    const own = new DurableTurnError({ code: DurableTurnErrorCode.HistoryWrite, message: "history down" });
    expect(workflowFailure(own)).toBe(own);
    expect(workflowFailure(Object.assign(new Error("x"), { code: "57P01" }))).toMatchObject({
      code: "workflow_failed",
    });
  });

  it("idempotencyKeyOf refuses a context without a key, or no context, with invalid_input", () => {
    for (const ctx of [undefined, null, {}, { idempotencyKey: 5 }]) {
      let thrown: unknown;
      try {
        idempotencyKeyOf(ctx as never);
      } catch (error) {
        thrown = error;
      }
      expect(DurableTurnError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ code: "invalid_input", message: expect.stringContaining("ctx.idempotencyKey") });
    }
    expect(idempotencyKeyOf({ idempotencyKey: "turn:3:call_1" } as never)).toBe("turn:3:call_1");
  });
});
