/**
 * Asking the host from inside a turn: a tool's `ctx.askHost` emits an
 * `action.required` on the turn's stream and waits for the host's
 * `answerActionRequest`; the wait ends with the answer, a timeout on the
 * runner's clock, the turn's abort, or a refusal, each a typed outcome.
 */
import { Type } from "@sinclair/typebox";
import { createVirtualClock, response, toolCall } from "@turnkit/agent-loop/testing";
import type { ActionRequiredPayload, RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { type ActionRequestOutcome, TURN_DEFAULTS, defineRuntimeTool } from "../../src/index.js";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import type { ActionRequestAnswerer } from "../../src/index.js";

const QUESTION = {
  kind: "elicitation",
  message: "Which branch should I deploy?",
  requestedSchema: { type: "object", properties: { branch: { type: "string" } }, required: ["branch"] },
  serverName: "deploy",
} as const;

/** A tool that asks the host once (or `times` times) and answers the model with what came back. */
function askingTool(seen: ActionRequestOutcome[], options: { times?: number; timeoutMs?: number } = {}) {
  return defineRuntimeTool({
    name: "deploy",
    description: "Deploys a branch",
    parameters: Type.Object({}),
    execute: async (ctx) => {
      for (let i = 0; i < (options.times ?? 1); i++) {
        const outcome = await ctx.askHost!(QUESTION, { timeoutMs: options.timeoutMs });
        seen.push(outcome);
      }
      return { content: [{ type: "text", text: JSON.stringify(seen.at(-1)) }] };
    },
  });
}

function actionEvents(events: readonly RuntimeEvent[]): Record<string, unknown>[] {
  return events.flatMap((event): Record<string, unknown>[] =>
    event.type === "action.required"
      ? [{ type: event.type, payload: event.payload }]
      : event.type === "debug.trace" && event.payload.phase === "action.request"
        ? [{ type: event.type, message: event.payload.message, attrs: event.payload.attrs }]
        : [],
  );
}

describe("asking the host from a tool", () => {
  it("emits action.required, hands the host the payload, and resolves with its answer", async () => {
    const seen: ActionRequestOutcome[] = [];
    const asked: ActionRequiredPayload[] = [];
    const answer: ActionRequestAnswerer = (request) => {
      asked.push(request);
      return { action: "accept", content: { branch: "main" } };
    };
    const turn = await runCheckedTurn({
      script: [response([toolCall("deploy", {}, { id: "call-1" })]), "deployed"],
      input: { tools: [askingTool(seen, { times: 2 })], answerActionRequest: answer },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    const requested = {
      ...QUESTION,
      toolCallId: "call-1",
      requestId: "elicitation:call-1:1",
      messageId: "msg_1",
      timeoutMs: TURN_DEFAULTS.actionRequestTimeoutMs,
    };
    expect(asked).toEqual([requested, { ...requested, requestId: "elicitation:call-1:2" }]);
    expect(seen).toEqual([
      {
        kind: "answered",
        requestId: "elicitation:call-1:1",
        answer: { action: "accept", content: { branch: "main" } },
      },
      {
        kind: "answered",
        requestId: "elicitation:call-1:2",
        answer: { action: "accept", content: { branch: "main" } },
      },
    ]);
    expect(actionEvents(turn.events)).toEqual([
      { type: "action.required", payload: requested },
      {
        type: "debug.trace",
        message: "elicitation elicitation:call-1:1 answered",
        attrs: { requestId: "elicitation:call-1:1", kind: "elicitation", outcome: "answered" },
      },
      { type: "action.required", payload: { ...requested, requestId: "elicitation:call-1:2" } },
      {
        type: "debug.trace",
        message: "elicitation elicitation:call-1:2 answered",
        attrs: { requestId: "elicitation:call-1:2", kind: "elicitation", outcome: "answered" },
      },
    ]);
    // The action.required comes before the tool call's final chunk, which carries the answer.
    const required = turn.events.findIndex((event) => event.type === "action.required");
    const finished = turn.events.findIndex(
      (event) =>
        event.type === "stream.resp" &&
        event.payload.chunk.kind === "tool_call" &&
        event.payload.chunk.status === "finished",
    );
    expect(required).toBeGreaterThan(0);
    expect(finished).toBeGreaterThan(required);
  });

  it("a model that reuses a call id in a later response asks under a new id: the second call's requests are <id>#2", async () => {
    // Some OpenAI-compatible servers number calls per response (`call_0` each time).
    const seen: ActionRequestOutcome[] = [];
    const asked: string[] = [];
    const turn = await runCheckedTurn({
      script: [
        response([toolCall("deploy", {}, { id: "call-1" })]),
        response([toolCall("deploy", {}, { id: "call-1" })]),
        "deployed twice",
      ],
      input: {
        tools: [askingTool(seen)],
        answerActionRequest: (request) => {
          asked.push(request.requestId);
          return { action: "accept", content: { branch: "main" } };
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(asked).toEqual(["elicitation:call-1:1", "elicitation:call-1#2:1"]);
    expect(seen.map((outcome) => [outcome.kind, outcome.requestId])).toEqual([
      ["answered", "elicitation:call-1:1"],
      ["answered", "elicitation:call-1#2:1"],
    ]);
  });

  it("without a host function: refused at once, no action.required, never a hang", async () => {
    const seen: ActionRequestOutcome[] = [];
    const turn = await runCheckedTurn({
      script: [response([toolCall("deploy", {}, { id: "call-1" })]), "not deployed"],
      input: { tools: [askingTool(seen)] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(seen).toEqual([
      {
        kind: "refused",
        requestId: "elicitation:call-1:1",
        reason: "the host answers no action requests in this turn",
      },
    ]);
    expect(turn.events.some((event) => event.type === "action.required")).toBe(false);
    expect(actionEvents(turn.events)).toEqual([
      {
        type: "debug.trace",
        message: "elicitation elicitation:call-1:1 refused: the host answers no action requests in this turn",
        attrs: { requestId: "elicitation:call-1:1", kind: "elicitation", outcome: "refused" },
      },
    ]);
  });

  it("refuses a request whose timeoutMs is not more than 0 without asking, naming timeoutMs", async () => {
    for (const timeoutMs of [0, -1, Number.NaN, "60000" as unknown as number]) {
      const seen: ActionRequestOutcome[] = [];
      let asked = 0;
      const turn = await runCheckedTurn({
        script: [response([toolCall("deploy", {}, { id: "call-1" })]), "done"],
        input: {
          tools: [askingTool(seen, { timeoutMs })],
          answerActionRequest: () => {
            asked++;
            return { action: "accept", content: { branch: "main" } };
          },
        },
      });
      expect(turn.outcome).toEqual({ kind: "completed" });
      expect(asked).toBe(0);
      expect(seen).toEqual([
        {
          kind: "refused",
          requestId: "elicitation:call-1:1",
          reason: `timeoutMs must be a number of milliseconds greater than 0, got ${String(timeoutMs)}`,
        },
      ]);
      expect(turn.events.some((event) => event.type === "action.required")).toBe(false);
    }
  });

  it("waits until the answer with timeoutMs Infinity (it does not time out at once)", async () => {
    const seen: ActionRequestOutcome[] = [];
    const turn = await runCheckedTurn({
      script: [response([toolCall("deploy", {}, { id: "call-1" })]), "done"],
      input: {
        tools: [askingTool(seen, { timeoutMs: Number.POSITIVE_INFINITY })],
        answerActionRequest: () =>
          new Promise((resolve) => setTimeout(() => resolve({ action: "accept", content: { branch: "main" } }), 20)),
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(seen).toEqual([
      {
        kind: "answered",
        requestId: "elicitation:call-1:1",
        answer: { action: "accept", content: { branch: "main" } },
      },
    ]);
  });

  it("times out on the runner's clock: outcome timed_out, the host's signal fires", async () => {
    const clock = createVirtualClock();
    const seen: ActionRequestOutcome[] = [];
    let hostSignal: AbortSignal | undefined;
    const answer: ActionRequestAnswerer = (_request, signal) => {
      hostSignal = signal;
      void clock.advance(5_000);
      return new Promise(() => {});
    };
    const turn = await runCheckedTurn({
      script: [response([toolCall("deploy", {}, { id: "call-1" })]), "gave up"],
      input: { tools: [askingTool(seen, { timeoutMs: 5_000 })], answerActionRequest: answer },
      runnerOptions: { clock },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(seen).toEqual([{ kind: "timed_out", requestId: "elicitation:call-1:1", timeoutMs: 5_000 }]);
    expect(hostSignal?.aborted).toBe(true);
    expect(clock.pendingCount()).toBe(0);
  });

  it("ends at once when the turn is aborted while waiting: outcome aborted, the host's signal fires", async () => {
    const controller = new AbortController();
    const seen: ActionRequestOutcome[] = [];
    let hostSignal: AbortSignal | undefined;
    const answer: ActionRequestAnswerer = (_request, signal) => {
      hostSignal = signal;
      controller.abort();
      return new Promise(() => {});
    };
    const started = Date.now();
    const turn = await runCheckedTurn({
      script: [response([toolCall("deploy", {}, { id: "call-1" })]), "never"],
      input: { tools: [askingTool(seen)], answerActionRequest: answer, signal: controller.signal },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(seen).toEqual([{ kind: "aborted", requestId: "elicitation:call-1:1" }]);
    expect(hostSignal?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("refuses when the host throws or answers with something that is not an answer of the kind", async () => {
    const answers: unknown[] = [{ approved: true }, new Error("the prompt is closed")];
    const answer: ActionRequestAnswerer = () => {
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next as never;
    };
    const seen: ActionRequestOutcome[] = [];
    const turn = await runCheckedTurn({
      script: [response([toolCall("deploy", {}, { id: "call-1" })]), "done"],
      input: { tools: [askingTool(seen, { times: 2 })], answerActionRequest: answer },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(seen.map((outcome) => outcome.kind)).toEqual(["refused", "refused"]);
    expect(seen[0]).toMatchObject({
      reason: expect.stringMatching(/^the host's answer does not fit a elicitation request \(/),
    });
    expect(seen[1]).toEqual({
      kind: "refused",
      requestId: "elicitation:call-1:2",
      reason: "the host failed to answer: the prompt is closed",
    });
  });
});
