/**
 * The testing kit's run checks: the event grammar over several runs, the
 * self-advancing virtual clock, the strict scripted model, leak probes and
 * hand-released promises.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/index.js";
import {
  EventGrammarError,
  ScriptedModelError,
  abortListenerCount,
  collectStream,
  assertEventGrammar,
  assistantMessage,
  createScriptedModel,
  createVirtualClock,
  deferred,
  probeRealTimers,
  throwingGetter,
  toolResultMessage,
  userMessage,
} from "../../src/testing/index.js";
import { collectEvents, contextWith } from "./stream-test-kit.js";

const prompt = userMessage("go", { timestamp: 1 });
const answer = assistantMessage("hi", { timestamp: 2 });
const run = (message = answer): AgentEvent[] => [
  { type: "agent_start" },
  { type: "turn_start" },
  { type: "message_start", message: prompt },
  { type: "message_end", message: prompt },
  { type: "message_start", message },
  { type: "message_end", message },
  { type: "turn_end", message, toolResults: [] },
  { type: "agent_end", messages: [prompt, message] },
];

describe("assertEventGrammar", () => {
  it("accepts consecutive runs of one Agent, and holds them to a count when asked", () => {
    const twoRuns = [...run(), ...run(assistantMessage("again", { timestamp: 3 }))];
    expect(() => assertEventGrammar(twoRuns)).not.toThrow();
    expect(() => assertEventGrammar(twoRuns, { runs: 2 })).not.toThrow();
    expect(() => assertEventGrammar(twoRuns, { runs: 1 })).toThrow(/more than 1 runs/);
    expect(() => assertEventGrammar(run(), { runs: 2 })).toThrow(/1 runs, expected 2/);
  });

  it("throws a TypeError saying what it got when the events are no array", () => {
    expect(() => assertEventGrammar(null as never)).toThrow(
      new TypeError("assertEventGrammar: expected an array of events, got null"),
    );
  });

  it("throws an EventGrammarError naming the rule and the event's index", () => {
    const result = toolResultMessage("c1", "work", "done", { timestamp: 3 });
    const early: AgentEvent[] = [
      { type: "agent_start" },
      { type: "turn_start" },
      { type: "tool_execution_start", toolCallId: "c1", toolName: "work", args: {} },
      { type: "message_start", message: result },
      { type: "message_end", message: result },
    ];
    let thrown: unknown;
    try {
      assertEventGrammar(early);
    } catch (error) {
      thrown = error;
    }
    expect(EventGrammarError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: "event_grammar",
      index: 4,
      rule: "tool result for c1 before its tool_execution_end",
    });
    expect(EventGrammarError.isInstance(new Error("other"))).toBe(false);
  });

  it("rejects a message_end that closes a message of another role", () => {
    const broken: AgentEvent[] = [
      { type: "agent_start" },
      { type: "message_start", message: prompt },
      { type: "message_end", message: answer },
    ];
    expect(() => assertEventGrammar(broken)).toThrow(/message_end of a assistant message closes a user message/);
  });
});

describe("createVirtualClock({ autoAdvance: true })", () => {
  it("fires each timer once the event loop turns, in time order, with time at its due point", async () => {
    const clock = createVirtualClock({ autoAdvance: true, start: 100 });
    const fired: string[] = [];
    const sleep = (ms: number, name: string) =>
      new Promise<void>((resolve) => clock.setTimeout(() => (fired.push(`${name}@${clock.now()}`), resolve()), ms));
    await Promise.all([sleep(5_000, "late"), sleep(1_000, "early")]);
    expect(fired).toEqual(["early@1100", "late@5100"]);
    expect(clock.now()).toBe(5_100);
  });

  it("never fires a cleared timer, and reports what is due and what was scheduled", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    let fired = false;
    const handle = clock.setTimeout(() => (fired = true), 50);
    clock.setTimeout(() => {}, 20);
    expect(clock.nextDueAt()).toBe(20);
    clock.clearTimeout(handle);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(fired).toBe(false);
    expect(clock.nextDueAt()).toBeUndefined();
    expect(clock.scheduledDelays()).toEqual([50, 20]);
  });

  it("stays still without autoAdvance", async () => {
    const clock = createVirtualClock();
    clock.setTimeout(() => {}, 10);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(clock.pendingCount()).toBe(1);
    expect(clock.now()).toBe(0);
  });
});

describe("a scripted model used differently than scripted", () => {
  it("strict: a request with no entry left throws a ScriptedModelError from the stream function", async () => {
    const scripted = createScriptedModel(["only answer"], { strict: true });
    await collectEvents(await scripted.streamFn(scripted.model, contextWith("first")));
    expect(() => scripted.streamFn(scripted.model, contextWith("second"))).toThrow(
      'Scripted model: request #2 arrived after all 1 script entries were used; its last message is user "second"',
    );
  });

  it("assertScriptConsumed reports an unexpected request, then entries never requested, then nothing", async () => {
    const lenient = createScriptedModel([]);
    const events = await collectEvents(await lenient.streamFn(lenient.model, contextWith("extra")));
    expect(events.at(-1)?.type).toBe("error");
    expect(() => lenient.assertScriptConsumed()).toThrow(expect.objectContaining({ code: "unexpected_request" }));

    const unused = createScriptedModel(["one", "two"]);
    await collectEvents(await unused.streamFn(unused.model, contextWith("hi")));
    let thrown: unknown;
    try {
      unused.assertScriptConsumed();
    } catch (error) {
      thrown = error;
    }
    expect(ScriptedModelError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: "unconsumed_entries",
      message: "Scripted model: 1 of 2 script entries were never requested (1 requests arrived)",
    });

    await collectEvents(await unused.streamFn(unused.model, contextWith("again")));
    expect(() => unused.assertScriptConsumed()).not.toThrow();
  });
});

describe("leak probes and deferred", () => {
  it("count abort listeners and real timers left running", () => {
    const controller = new AbortController();
    const onAbort = () => {};
    controller.signal.addEventListener("abort", onAbort);
    expect(abortListenerCount(controller.signal)).toBe(1);
    controller.signal.removeEventListener("abort", onAbort);
    expect(abortListenerCount(controller.signal)).toBe(0);

    const probe = probeRealTimers();
    const kept = setTimeout(() => {}, 10_000);
    const cleared = setTimeout(() => {}, 10_000);
    clearTimeout(cleared);
    probe.restore();
    expect(probe.pending()).toBe(1);
    clearTimeout(kept);
  });

  it("probeRealTimers leaves out the timers of Node's own fetch connection pool, not the run's", async () => {
    const server = createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const probe = probeRealTimers();
    try {
      // A kept-alive socket holds its pool's timers after the answer: they belong to fetch, not to the code under test.
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("ok");
      const own = setTimeout(() => {}, 10_000);
      expect(probe.pending()).toBe(1);
      clearTimeout(own);
      expect(probe.pending()).toBe(0);
    } finally {
      probe.restore();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("deferred settles only when released", async () => {
    const gate = deferred<string>();
    let value: string | undefined;
    void gate.promise.then((released) => (value = released));
    await Promise.resolve();
    expect(value).toBeUndefined();
    gate.resolve("open");
    await gate.promise;
    expect(value).toBe("open");
  });
});

describe("collectStream", () => {
  it("reads a stream to its end: events, their types, the visible text and result()", async () => {
    const scripted = createScriptedModel(["Hello there"]);
    const collected = await collectStream(scripted.streamFn(scripted.model, contextWith("hi")));
    expect(collected.types).toEqual(["start", "text_start", "text_delta", "text_delta", "text_end", "done"]);
    expect(collected.text).toBe("Hello there");
    expect(collected.final.content).toEqual([{ type: "text", text: "Hello there" }]);
    expect(collected.events).toHaveLength(6);
  });
});

describe("unreadable values", () => {
  it("throwingGetter refuses a field that is no string, naming it", () => {
    expect(() => throwingGetter(Object.create(null) as never)).toThrow(
      new TypeError("throwingGetter: field must be a string, got object"),
    );
    expect(() => (throwingGetter("x") as { x: unknown }).x).toThrow("x getter failed");
  });
});
