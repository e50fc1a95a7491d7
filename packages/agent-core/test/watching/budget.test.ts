/**
 * Budgets a host sets per turn (`RunTurnInput.budget`): when a limit is
 * reached the turn ends after the current step, with every tool call
 * answered and no new request, as `failed` / `budget_exceeded` naming the
 * limit and the measured value; the running totals are on the events
 * before that.
 */
import { describe, expect, it } from "vitest";
import { PiTurnRunner, TurnkitConfigError } from "../../src/index.js";
import {
  assertToolCallsAnswered,
  createRecordingEventWriter,
  createRecordingTool,
  createScriptedModel,
  response,
  runCheckedTurn,
  text,
  toolCall,
  usageOf as usage,
} from "../../src/testing/index.js";

/** A model that keeps calling a tool, each response with the given usage. */
function toolLoop(steps: number, perStep = usage(100, 30, 0.25)) {
  return Array.from({ length: steps }, (_, index) =>
    response([text(`step ${index}`), toolCall("work", { value: String(index) })], { usage: perStep }),
  );
}

describe("turn budgets", () => {
  it("maxSteps: the turn ends after the step that reached it, its tool calls answered, without another request", async () => {
    const work = createRecordingTool("work");
    const turn = await runCheckedTurn({ script: toolLoop(5), input: { tools: [work], budget: { maxSteps: 2 } } });

    expect(turn.outcome).toEqual({
      kind: "failed",
      message: "The turn reached its step limit (maxSteps 2) after 2 model requests; it ended without another request",
      error: {
        code: "budget_exceeded",
        message:
          "The turn reached its step limit (maxSteps 2) after 2 model requests; it ended without another request",
        budget: { limit: "maxSteps", max: 2, measured: 2 },
      },
    });
    expect(turn.requests).toHaveLength(2);
    expect(work.calls).toHaveLength(2);
    assertToolCallsAnswered(turn.transcript);
    const terminal = turn.events[turn.events.length - 1]!;
    expect(terminal.type === "session.status" && terminal.payload).toMatchObject({
      status: "failed",
      error: { code: "budget_exceeded", budget: { limit: "maxSteps", max: 2, measured: 2 } },
    });
  });

  it("maxOutputTokens: running totals on each step's finish chunk, then the stop", async () => {
    const work = createRecordingTool("work");
    const turn = await runCheckedTurn({
      script: toolLoop(5),
      input: { tools: [work], budget: { maxOutputTokens: 50 } },
    });

    const totals = turn.events.flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "finish"
        ? [event.payload.chunk.step?.turnUsage.total.output]
        : [],
    );
    expect(totals).toEqual([30, 60]);
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: { code: "budget_exceeded", budget: { limit: "maxOutputTokens", max: 50, measured: 60 } },
    });
    expect(turn.requests).toHaveLength(2);
  });

  it("maxCost: the cost of every attempt counts", async () => {
    const work = createRecordingTool("work");
    const turn = await runCheckedTurn({ script: toolLoop(5), input: { tools: [work], budget: { maxCost: 0.7 } } });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: { budget: { limit: "maxCost", max: 0.7, measured: 0.75 } },
    });
    expect(turn.requests).toHaveLength(3);
    expect(turn.outcome.usage?.total.cost.total).toBe(0.75);
  });

  it("steering that would continue a turn past its limit meets the same check: no request is sent", async () => {
    let polls = 0;
    const turn = await runCheckedTurn({
      script: [response([text("Done.")], { usage: usage(100, 30, 1) }), "never sent"],
      input: {
        budget: { maxCost: 0.5 },
        // At the exit boundary the host hands over one more message, which would start another request.
        getSteeringMessages: () => (polls++ === 0 ? [{ text: "one more thing" }] : []),
      },
    });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: { code: "budget_exceeded", budget: { limit: "maxCost", max: 0.5, measured: 1 } },
    });
    expect(turn.requests).toHaveLength(1);
  });

  it("a hook's own request (a summary) that reaches a limit stops the request it was made for: nothing more is sent", async () => {
    // The hook's request goes through the turn's call stack: the scripted model answers it first.
    const turn = await runCheckedTurn({
      script: [response("Summary.", { usage: usage(3_000, 500, 1) }), "never sent"],
      input: {
        budget: { maxOutputTokens: 100 },
        hooks: {
          beforeLlmCallHook: async (event) => {
            const summary = await event.auxiliaryStreamFn(
              event.model,
              { messages: [{ role: "user", content: "Summarise.", timestamp: 0 }] },
              {},
            );
            await summary.result();
            return undefined;
          },
        },
      },
    });
    expect(turn.outcome).toMatchObject({
      kind: "failed",
      error: { code: "budget_exceeded", budget: { limit: "maxOutputTokens", max: 100, measured: 500 } },
    });
    // Only the summary was sent; the loop's request never was.
    expect(turn.requests).toHaveLength(1);
    expect(turn.outcome.usage?.main.output).toBe(0);
    expect(turn.outcome.usage?.auxiliary.output).toBe(500);
  });

  it("a limit reached on the last step ends the turn as it would have anyway", async () => {
    const turn = await runCheckedTurn({
      script: [response([text("Done.")], { usage: usage(100, 30, 1) })],
      input: { budget: { maxSteps: 1, maxCost: 0.5 } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
  });

  it("a malformed budget is refused before any event, naming the field", async () => {
    const model = createScriptedModel([]);
    const runner = new PiTurnRunner();
    const writer = createRecordingEventWriter();
    const base = {
      sessionId: "s",
      turnId: "t",
      systemPrompt: "",
      userMessage: { text: "hi" },
      llm: { model: model.model, streamFn: model.streamFn },
      eventWriter: writer,
    };
    for (const [budget, field] of [
      [{ maxSteps: 0 }, "budget.maxSteps must be a positive integer"],
      [{ maxSteps: 1.5 }, "budget.maxSteps must be a positive integer"],
      [{ maxOutputTokens: -1 }, "budget.maxOutputTokens must be a positive number"],
      [{ maxCost: Number.NaN }, "budget.maxCost must be a positive number"],
      ["10", "budget must be an object"],
    ] as const) {
      const failure = await runner.runTurn({ ...base, budget: budget as never }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(TurnkitConfigError.isInstance(failure)).toBe(true);
      expect((failure as TurnkitConfigError).code).toBe("invalid_turn_input");
      expect((failure as Error).message).toContain(`RunTurnInput.${field}`);
    }
    expect(writer.events).toHaveLength(0);
  });
});
