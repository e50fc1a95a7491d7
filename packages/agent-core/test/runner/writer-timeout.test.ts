/**
 * A host that sets `hookTimeoutMs` bounds every piece of host code the turn
 * waits on; the event writer is host code too: a `push` that has not
 * settled by then fails the turn with code `internal`, naming the writer
 * and the limit, and the events waiting behind it are dropped and
 * announced in one `debug.trace`, the terminal status offered without
 * waiting, `seq` without a gap.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { createRecordingTool, createVirtualClock, runScriptedTurn } from "../../src/testing/index.js";

describe("an event writer whose push never settles, with hookTimeoutMs", () => {
  it("ends the turn failed (internal), naming the writer and the limit, with one terminal status", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const controller = new AbortController();
    const received: RuntimeEvent[] = [];
    const eventWriter = {
      push: (event: RuntimeEvent) => {
        received.push(event);
        // The third event's push never settles; the writer is free again for what it is offered afterwards.
        if (event.seq === 3) return new Promise<void>(() => {});
      },
    };
    const shell = createRecordingTool("shell", { executionMode: "parallel" });
    const turn = runScriptedTurn({
      script: [response([toolCall("shell", { value: "a" })]), "done"],
      runnerOptions: { clock },
      input: { tools: [shell], hookTimeoutMs: 5_000, eventWriter, signal: controller.signal },
    });
    const stillRunning = Symbol("still running");
    const settled = await Promise.race([
      turn,
      new Promise<typeof stillRunning>((resolve) => setTimeout(() => resolve(stillRunning), 300)),
    ]);
    controller.abort();
    await turn;
    expect(settled).not.toBe(stillRunning);
    const { outcome } = settled as Awaited<typeof turn>;
    expect(outcome).toMatchObject({ kind: "failed", error: { code: "internal" } });
    expect((outcome as { error: { message: string } }).error.message).toMatch(/event writer.*5000 ms/);
    expect(received.map((event) => event.seq)).toEqual(received.map((_, index) => index + 1));
    const terminal = received.filter((event) => event.type === "session.status" && event.payload.status !== "running");
    expect(terminal).toHaveLength(1);
    expect(received.at(-1)).toBe(terminal[0]);
  });
});
