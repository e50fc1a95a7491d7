/**
 * Named faults of the stream function, through `Agent` and
 * through `PiTurnRunner`. Each run is checked with every invariant (event
 * grammar, answered and replayable transcript, one outcome and terminal
 * status, history once, no leaks); each test then asserts the ending the
 * fault calls for (behaviour L9: a synthesised error message, `agent_end` once;
 * and for the turn one `failed` or `aborted` outcome, its terminal status last).
 */
import { describe, expect, it } from "vitest";
import { endWithoutDone, eventsAfterDone, hang, reject, response, text, throwSync } from "@turnkit/agent-loop/testing";
import { runAgentFault, runTurnFault, textOf } from "../support/fault-harness.js";

const agentEnds = (events: { type: string }[]) => events.filter((event) => event.type === "agent_end").length;

describe("stream faults: Agent", () => {
  it("a stream function that throws synchronously", async () => {
    const run = await runAgentFault({ script: [throwSync(new Error("socket exploded"))] });
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "socket exploded" });
    expect(agentEnds(run.events)).toBe(1);
    expect(run.model.requests).toHaveLength(1);
  });

  it("a stream function that rejects", async () => {
    const run = await runAgentFault({ script: [reject(new Error("promise of a stream rejected"))] });
    expect(run.last).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "promise of a stream rejected",
    });
    expect(agentEnds(run.events)).toBe(1);
  });

  it("a stream that ends without a terminal event", async () => {
    const run = await runAgentFault({ script: [endWithoutDone("cut off mid answer")] });
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "error" });
    expect(textOf(run.last)).toBe("cut off mid answer");
    expect(agentEnds(run.events)).toBe(1);
  });

  it("a stream that emits events after done", async () => {
    const run = await runAgentFault({ script: [eventsAfterDone("the real answer", { reachConsumer: true })] });
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(textOf(run.last)).toBe("the real answer");
    expect(JSON.stringify(run.events)).not.toContain("late text after done");
    expect(run.events.at(-1)?.type).toBe("agent_end");
  });

  it("a stream that never emits anything, ended by abort", async () => {
    const run = await runAgentFault({ script: [hang()], at: (agent) => [{ atMs: 5_000, run: () => agent.abort() }] });
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(run.drives[0]!.watchdogAborted).toBe(false);
    expect(run.drives[0]!.endedAt).toBe(5_000);
    expect(agentEnds(run.events)).toBe(1);
  });
});

describe("stream faults: PiTurnRunner", () => {
  it("a stream function that throws synchronously", async () => {
    const run = await runTurnFault({ script: [throwSync(new Error("socket exploded"))] });
    expect(run.outcome).toMatchObject({ kind: "failed", message: "socket exploded" });
    expect(run.statuses).toEqual(["running", "failed"]);
  });

  it("a stream function that rejects", async () => {
    const run = await runTurnFault({ script: [reject(new Error("promise of a stream rejected"))] });
    expect(run.outcome).toMatchObject({ kind: "failed", message: "promise of a stream rejected" });
    expect(run.statuses).toEqual(["running", "failed"]);
  });

  it("a stream that ends without a terminal event", async () => {
    const run = await runTurnFault({ script: [endWithoutDone(response([text("cut off mid answer")]))] });
    expect(run.outcome.kind).toBe("failed");
    expect(run.statuses).toEqual(["running", "failed"]);
  });

  it("a stream that emits events after done", async () => {
    const run = await runTurnFault({ script: [eventsAfterDone("the real answer", { reachConsumer: true })] });
    expect(run.outcome).toEqual({ kind: "completed" });
    const shown = run.events.flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "text" ? [event.payload.chunk.delta] : [],
    );
    expect(shown.join("")).toBe("the real answer");
    expect(textOf(run.stored.at(-1))).toBe("the real answer");
  });

  it("a stream that never emits anything, ended by abort", async () => {
    // Stream watchdogs off: only the caller's abort (at 5 s on the virtual clock) can end it.
    const run = await runTurnFault({
      script: [hang()],
      input: { llm: { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 } },
      at: (controller) => [{ atMs: 5_000, run: () => controller.abort() }],
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(run.statuses).toEqual(["running", "aborted"]);
    expect(run.drive.watchdogAborted).toBe(false);
    expect(run.drive.endedAt).toBe(5_000);
  });
});
