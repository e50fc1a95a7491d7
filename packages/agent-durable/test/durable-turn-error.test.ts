import { TurnkitError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { revokedProxy } from "@turnkit/agent-loop/testing";
import {
  DurableTurnError,
  DurableTurnErrorCode,
  approvalRequestId,
  durableTool,
  idempotencyKeyOf,
  turnRef,
} from "../src/index.js";
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
    for (const ctx of [undefined, null, {}, { idempotencyKey: 5 }, revokedProxy()]) {
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

  it("the helpers a host calls refuse what they cannot use with invalid_input, naming it, never the engine's error", () => {
    const tool = defineRuntimeTool({
      name: "work",
      description: "works",
      parameters: Type.Object({}),
      execute: async () => ({ content: [] }),
    });
    for (const [call, message] of [
      [
        () => durableTool(tool, { replay: "always" as never }),
        'durableTool: flags.replay must be "safe" or "never", got "always"',
      ],
      [
        () => durableTool(tool, { requiresApproval: "yes" as never }),
        'durableTool: flags.requiresApproval must be a boolean, got "yes"',
      ],
      [
        () => durableTool(tool, revokedProxy() as never),
        "durableTool: flags must be an object { replay?, requiresApproval? }, got an unreadable value",
      ],
      [
        () => turnRef(revokedProxy() as never),
        "the turn's address must be an object { sessionId, turnId }, got an unreadable value",
      ],
      [() => approvalRequestId(Symbol("call") as never), "approvalRequestId: toolCallId must be a string, got symbol"],
      [() => approvalRequestId("call_1", 5 as never), "approvalRequestId: scope must be a string, got 5"],
    ] as const) {
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(DurableTurnError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ code: "invalid_input", message });
    }
    // A tool that is no RuntimeTool is agent-core's invalid_tool, as everywhere.
    expect(() => durableTool(5 as never, {})).toThrow(/durableTool: tool: expected a RuntimeTool/);
    expect(durableTool(tool, { replay: "safe", requiresApproval: true })).toMatchObject({
      replay: "safe",
      requiresApproval: true,
    });
  });
});

it("DurableTurnError.isInstance is false, never a throw, for a value that cannot be read (a revoked proxy)", () => {
  expect(DurableTurnError.isInstance(revokedProxy())).toBe(false);
});

describe("DurableTurnError's constructor given odd options", () => {
  const throwingField = (field: string) =>
    Object.defineProperty({ code: "invalid_input", message: "m" }, field, {
      get: () => {
        throw new Error(`${field} getter failed`);
      },
    });
  const cases: [string, () => unknown, RegExp][] = [
    [
      "no options",
      () => new (DurableTurnError as any)(),
      /^DurableTurnError: options must be an object, got undefined$/,
    ],
    ["null", () => new DurableTurnError(null as any), /^DurableTurnError: options must be an object, got null$/],
    [
      "a string",
      () => new DurableTurnError("boom" as any),
      /^DurableTurnError: options must be an object, got "boom"$/,
    ],
    [
      "a revoked proxy",
      () => new DurableTurnError(revokedProxy() as any),
      /^DurableTurnError: options must be an object/,
    ],
    [
      "an unknown code",
      () => new DurableTurnError({ code: "x" as any, message: "m" }),
      /^DurableTurnError: options\.code must be one of/,
    ],
    [
      "a message that is no string",
      () => new DurableTurnError({ code: "invalid_input", message: 5 as any }),
      /^DurableTurnError: options\.message must be a string/,
    ],
    ...["code", "message", "cause"].map((field): [string, () => unknown, RegExp] => [
      `a ${field} getter that throws`,
      () => new DurableTurnError(throwingField(field) as any),
      new RegExp(`^DurableTurnError: options\\.${field} could not be read: ${field} getter failed$`),
    ]),
  ];
  it.each(cases)("%s is refused with a TypeError naming the argument", (_name, construct, message) => {
    let thrown: unknown;
    try {
      construct();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(message);
  });
});
