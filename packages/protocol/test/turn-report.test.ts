import { describe, expect, it } from "vitest";
import {
  ErrorCode,
  RUNTIME_WARNING_CODES,
  RuntimeWarningCode,
  isErrorCode,
  isRuntimeEvent,
  isRuntimeEventOfType,
  outcomeToStatus,
  validateRuntimeEvent,
  type TurnOutcome,
} from "../src/index.js";
import { event, sampleTurn, sampleTurnUsage, zeroUsage } from "./sample-events.js";

const timing = {
  wallMs: 40,
  requests: [{ family: "main" as const, attempts: 1, backoffMs: 0, durationMs: 30 }],
  toolCalls: [],
};

describe("runtime.warning", () => {
  it("has one stable code per recovered problem", () => {
    expect(RUNTIME_WARNING_CODES).toEqual([
      "retry_wait",
      "timeout_retried",
      "images_dropped",
      "overflow_recovery",
      "hook_abandoned",
      "late_tool_update",
      "extension_degraded",
      "model_fallback",
      "steering_dropped",
    ]);
    expect(RuntimeWarningCode.RetryWait).toBe("retry_wait");
  });

  it("validates every code with its structured fields", () => {
    const warnings = [
      event("runtime.warning", {
        code: "timeout_retried",
        message: "no answer for 120 s, retrying in 1 s",
        family: "auxiliary",
        attempt: 2,
        delayMs: 1000,
        error: { code: "timeout", message: "LLM stream timed out" },
      }),
      event("runtime.warning", { code: "images_dropped", message: "2 images left out of the request", count: 2 }),
      event("runtime.warning", {
        code: "steering_dropped",
        message: "1 steering message said nothing and was left out",
        count: 1,
        source: "enqueue",
      }),
      event("runtime.warning", {
        code: "overflow_recovery",
        message: "context overflow: resending once after compaction",
      }),
      event("runtime.warning", {
        code: "hook_abandoned",
        message: "beforeToolCallHook ignored the abort",
        hook: "beforeToolCallHook",
      }),
      event("runtime.warning", {
        code: "model_fallback",
        message: "anthropic/claude-sonnet-4-5 failed (overloaded: Overloaded); the request goes to openai/gpt-5",
        family: "main",
        from: "anthropic/claude-sonnet-4-5",
        to: "openai/gpt-5",
        trigger: "overloaded",
        error: { code: "upstream", message: "529 Overloaded" },
      }),
      event("runtime.warning", {
        code: "extension_degraded",
        message: 'MCP server "tracker" is not running; its 2 tools fail this turn',
        extensionId: "tracker",
        tools: ["tracker_search", "tracker_create"],
      }),
    ];
    for (const warning of warnings) expect(validateRuntimeEvent(warning)).toEqual({ ok: true, event: warning });
    expect(warnings.every((warning) => isRuntimeEventOfType(warning, "runtime.warning"))).toBe(true);
  });

  it("rejects an unknown code, a retry without its delay and a warning without a message", () => {
    const retry = sampleTurn().find((e) => e.type === "runtime.warning")!;
    expect(isRuntimeEvent({ ...retry, payload: { ...retry.payload, code: "something_else" } })).toBe(false);
    const { delayMs: _delay, ...withoutDelay } = retry.payload as unknown as Record<string, unknown>;
    const result = validateRuntimeEvent({ ...retry, payload: withoutDelay });
    expect(result.ok).toBe(false);
    expect(isRuntimeEvent(event("runtime.warning", { code: "overflow_recovery" } as never))).toBe(false);
    const degraded = { code: "extension_degraded", message: "down", extensionId: "x" } as never;
    expect(isRuntimeEvent(event("runtime.warning", degraded))).toBe(false); // tools are required, [] when none
    expect(
      isRuntimeEvent(event("runtime.warning", { ...(degraded as object), tools: [], extensionId: "" } as never)),
    ).toBe(false);
  });
});

describe("budget_exceeded", () => {
  it("is a stable error code whose error names the limit and the measured value", () => {
    expect(ErrorCode.BudgetExceeded).toBe("budget_exceeded");
    expect(isErrorCode("budget_exceeded")).toBe(true);
    const failed = event("session.status", {
      status: "failed",
      error: {
        code: "budget_exceeded",
        message: "The turn reached maxSteps (3)",
        budget: { limit: "maxSteps", max: 3, measured: 3 },
      },
    });
    expect(validateRuntimeEvent(failed)).toEqual({ ok: true, event: failed });
  });

  it("carries budget exactly with that code", () => {
    const withoutBudget = event("session.status", {
      status: "failed",
      error: { code: "budget_exceeded", message: "over" },
    });
    expect(validateRuntimeEvent(withoutBudget)).toEqual({
      ok: false,
      errors: [
        "/payload/error/budget: must be present exactly when the code is budget_exceeded (code budget_exceeded)",
      ],
    });
    const strayBudget = event("session.status", {
      status: "failed",
      error: { code: "hook", message: "h", budget: { limit: "maxCost", max: 1, measured: 2 } },
    });
    expect(isRuntimeEvent(strayBudget)).toBe(false);
    const unknownLimit = event("session.status", {
      status: "failed",
      error: { code: "budget_exceeded", message: "m", budget: { limit: "maxTime", max: 1, measured: 2 } as never },
    });
    expect(isRuntimeEvent(unknownLimit)).toBe(false);
  });
});

describe("usage and timing of a turn", () => {
  it("the terminal status and a step's finish chunk validate with them", () => {
    const turn = sampleTurn();
    const terminal = turn[turn.length - 1]!;
    expect(terminal.type === "session.status" && terminal.payload.usage).toEqual(sampleTurnUsage);
    expect(turn.every((e) => isRuntimeEvent(e))).toBe(true);
    const finish = turn.find(
      (e) => e.type === "stream.resp" && e.payload.chunk.kind === "finish" && e.payload.chunk.step,
    )!;
    expect(isRuntimeEvent(finish)).toBe(true);
  });

  it("rejects negative timings and a step without running totals", () => {
    const completed = event("session.status", {
      status: "completed",
      usage: sampleTurnUsage,
      timing: { ...timing, wallMs: -1 },
    });
    expect(isRuntimeEvent(completed)).toBe(false);
    const finish = event("stream.resp", {
      messageId: "m1",
      chunkIndex: 0,
      chunk: { kind: "finish", reason: "stop", step: { stepIndex: 0, usage: zeroUsage } as never },
    });
    expect(validateRuntimeEvent(finish).ok).toBe(false);
  });

  it("outcomeToStatus carries usage, timing and the budget detail for every kind", () => {
    const budget = { limit: "maxCost" as const, max: 0.5, measured: 0.52 };
    const outcomes: TurnOutcome[] = [
      { kind: "completed", usage: sampleTurnUsage, timing },
      { kind: "aborted", usage: sampleTurnUsage, timing },
      {
        kind: "failed",
        message: "over",
        error: { code: "budget_exceeded", message: "over", budget },
        usage: sampleTurnUsage,
        timing,
      },
    ];
    expect(outcomes.map(outcomeToStatus)).toEqual([
      { status: "completed", usage: sampleTurnUsage, timing },
      { status: "aborted", usage: sampleTurnUsage, timing },
      { status: "failed", error: { code: "budget_exceeded", message: "over", budget }, usage: sampleTurnUsage, timing },
    ]);
    expect(outcomeToStatus({ kind: "completed" })).toEqual({ status: "completed" });
  });
});
