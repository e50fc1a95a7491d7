/**
 * The serial event queue numbers an event when it hands it to the writer:
 * the writer sees `seq` 1, 2, 3, ... one event at a time, and a writer
 * given up on is told what it never received instead of seeing a gap.
 */
import { describe, expect, it } from "vitest";
import { deferred } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { type EventWriter, SerialEventQueue } from "../../src/event-bridge/serial-event-queue.js";

function queueFor(push: (event: RuntimeEvent) => void | Promise<void>) {
  const failures: unknown[] = [];
  let ids = 0;
  const writer: EventWriter = { push };
  const queue = new SerialEventQueue(
    writer,
    { sessionId: "s", turnId: "t", newEventId: () => `e${++ids}`, checkRepeats: true },
    { writerFailed: (error) => void failures.push(error) },
  );
  return { queue, failures };
}

const trace = (message: string) => ({ phase: "test", level: "debug" as const, message });
const describeEvent = (event: RuntimeEvent) =>
  `${event.seq} ${event.type === "debug.trace" ? event.payload.message : event.type === "session.status" ? event.payload.status : event.type}`;

describe("SerialEventQueue", () => {
  it("hands events to a synchronous writer at once, numbered 1, 2, 3", () => {
    const seen: string[] = [];
    const { queue } = queueFor((event) => void seen.push(describeEvent(event)));
    queue.push("session.status", { status: "running" });
    queue.push("debug.trace", trace("a"));
    expect(seen).toEqual(["1 running", "2 a"]);
  });

  it("an event pushed from inside the writer's push comes after that call returned", () => {
    const seen: string[] = [];
    let inside = false;
    const { queue } = queueFor((event) => {
      expect(inside).toBe(false);
      inside = true;
      if (event.seq === 1) queue.push("debug.trace", trace("pushed from the writer"));
      seen.push(describeEvent(event));
      inside = false;
    });
    queue.push("debug.trace", trace("first"));
    queue.push("debug.trace", trace("second"));
    expect(seen).toEqual(["1 first", "2 pushed from the writer", "3 second"]);
  });

  it("waits for an async writer before the next event; drain resolves once all were handed over", async () => {
    const answers = [deferred<void>(), deferred<void>()];
    const seen: string[] = [];
    const { queue } = queueFor((event) => {
      seen.push(describeEvent(event));
      return answers[event.seq - 1]?.promise;
    });
    queue.push("debug.trace", trace("a"));
    queue.push("debug.trace", trace("b"));
    queue.push("session.status", { status: "completed" });
    expect(seen).toEqual(["1 a"]);
    const drained = queue.drain();
    answers[0]!.resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(["1 a", "2 b"]);
    answers[1]!.resolve();
    expect(await drained).toBe("drained");
    expect(seen).toEqual(["1 a", "2 b", "3 completed"]);
  });

  it("a writer given up on: the waiting events are dropped unnumbered and announced, then the terminal status", async () => {
    const seen: RuntimeEvent[] = [];
    const { queue } = queueFor((event) => {
      seen.push(event);
      if (event.seq === 2) return new Promise<void>(() => undefined);
    });
    queue.push("session.status", { status: "running" });
    queue.push("debug.trace", trace("the writer hangs here"));
    queue.push("debug.trace", trace("never received"));
    queue.push("runtime.warning", { code: "overflow_recovery", message: "never received either" });
    queue.push("session.status", { status: "aborted" });
    const controller = new AbortController();
    controller.abort();
    expect(await queue.drain(controller.signal, 0)).toBe("abandoned");
    queue.abandon();
    queue.push("debug.trace", trace("after the end"));
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(seen[2]).toMatchObject({
      type: "debug.trace",
      payload: {
        phase: "events",
        level: "warn",
        attrs: { droppedEvents: 2, droppedTypes: { "debug.trace": 1, "runtime.warning": 1 } },
      },
    });
    expect(seen[3]).toMatchObject({ type: "session.status", payload: { status: "aborted" } });
    expect(new Set(seen.map((event) => event.eventId)).size).toBe(4);
  });

  it("a writer given up on while busy with the terminal status itself: nothing more, nothing announced", async () => {
    const seen: RuntimeEvent[] = [];
    const { queue } = queueFor((event) => {
      seen.push(event);
      if (event.type === "session.status" && event.payload.status === "aborted")
        return new Promise<void>(() => undefined);
    });
    queue.push("session.status", { status: "running" });
    queue.push("session.status", { status: "aborted" });
    const controller = new AbortController();
    controller.abort();
    expect(await queue.drain(controller.signal, 0)).toBe("abandoned");
    queue.abandon();
    expect(seen.map(describeEvent)).toEqual(["1 running", "2 aborted"]);
  });

  it("records the first failure of a writer that throws or rejects, and still offers every later event", async () => {
    const seen: string[] = [];
    const { queue, failures } = queueFor((event) => {
      seen.push(describeEvent(event));
      if (event.seq === 1) throw new Error("thrown");
      if (event.seq === 2) return Promise.reject(new Error("rejected"));
    });
    queue.push("debug.trace", trace("a"));
    queue.push("debug.trace", trace("b"));
    queue.push("session.status", { status: "failed", error: { code: "internal", message: "x" } });
    expect(await queue.drain()).toBe("drained");
    expect(seen).toEqual(["1 a", "2 b", "3 failed"]);
    expect(failures.map((error) => (error as Error).message)).toEqual(["thrown"]);
    expect(queue.failure).toEqual({ error: failures[0] });
  });
});
