import type { AssistantMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
  createScriptedModel,
  createVirtualClock,
  emptyUsage,
  response,
  text,
  thinking,
  toolCall,
  assistantMessage,
} from "../../src/testing/index.js";
import { collectEvents, contextWith, flushMicrotasks, typesOf } from "./stream-test-kit.js";

describe("scripted model: event sequences", () => {
  it("streams a text response as start, text_start, one delta per word, text_end, done", async () => {
    const scripted = createScriptedModel([response("Hello there world")]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = await collectEvents(stream);

    expect(typesOf(events)).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_end",
      "done",
    ]);
    const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
    expect(deltas).toEqual(["Hello", " there", " world"]);
    const end = events[5];
    expect(end.type === "text_end" && end.content).toBe("Hello there world");
    const done = events[6];
    expect(done.type).toBe("done");
    if (done.type !== "done") return;
    expect(done.reason).toBe("stop");
    expect(done.message.content).toEqual([{ type: "text", text: "Hello there world" }]);
    expect(done.message).toMatchObject({
      role: "assistant",
      api: "scripted",
      provider: "scripted",
      model: "scripted-model",
      stopReason: "stop",
      usage: emptyUsage(),
    });
  });

  it("splits text into chunkSize characters when asked", async () => {
    const scripted = createScriptedModel([response("abcdefg", { chunkSize: 3 })]);
    const events = await collectEvents(await scripted.streamFn(scripted.model, contextWith("hi")));
    expect(events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []))).toEqual(["abc", "def", "g"]);
  });

  it("streams thinking then text with content indexes 0 and 1", async () => {
    const scripted = createScriptedModel([response([thinking("Let me see", { signature: "sig-1" }), text("Done")])]);
    const events = await collectEvents(await scripted.streamFn(scripted.model, contextWith("hi")));

    expect(typesOf(events)).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_delta",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_end",
      "done",
    ]);
    expect(
      events
        .filter((event) => event.type.startsWith("thinking_"))
        .map((event) => (event as { contentIndex: number }).contentIndex),
    ).toEqual([0, 0, 0, 0, 0]);
    expect(
      events
        .filter((event) => event.type.startsWith("text_"))
        .map((event) => (event as { contentIndex: number }).contentIndex),
    ).toEqual([1, 1, 1]);
    const final = await finalMessageOf(events);
    expect(final.content).toEqual([
      { type: "thinking", thinking: "Let me see", thinkingSignature: "sig-1" },
      { type: "text", text: "Done" },
    ]);
  });

  it("streams two tool calls whose deltas concatenate to the JSON of their arguments", async () => {
    const firstArgs = { path: "src/index.ts", limit: 20 };
    const secondArgs = { command: "ls -la", env: { DEBUG: "1" } };
    const scripted = createScriptedModel([response([toolCall("read", firstArgs), toolCall("bash", secondArgs)])]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = await collectEvents(stream);

    const types = typesOf(events);
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("done");
    const perCall = (index: number) =>
      events.filter((event) => "contentIndex" in event && event.contentIndex === index);
    for (const [index, args] of [firstArgs, secondArgs].entries()) {
      const callEvents = perCall(index);
      expect(callEvents[0].type).toBe("toolcall_start");
      expect(callEvents.at(-1)?.type).toBe("toolcall_end");
      expect(callEvents.slice(1, -1).every((event) => event.type === "toolcall_delta")).toBe(true);
      expect(callEvents.length).toBeGreaterThan(3);
      const json = callEvents.flatMap((event) => (event.type === "toolcall_delta" ? [event.delta] : [])).join("");
      expect(JSON.parse(json)).toEqual(args);
      expect(json).toBe(JSON.stringify(args));
    }
    const ends = events.flatMap((event) => (event.type === "toolcall_end" ? [event.toolCall] : []));
    expect(ends).toEqual([
      { type: "toolCall", id: "call_1", name: "read", arguments: firstArgs },
      { type: "toolCall", id: "call_2", name: "bash", arguments: secondArgs },
    ]);
    const final = await stream.result();
    expect(final.stopReason).toBe("toolUse");
    expect(final.content).toEqual(ends);
  });

  it("numbers tool call ids per scripted model across responses and keeps explicit ids", async () => {
    const scripted = createScriptedModel([
      response([toolCall("a", {})]),
      response([toolCall("b", {}, { id: "mine" }), toolCall("c", {})]),
    ]);
    const first = await (await scripted.streamFn(scripted.model, contextWith("1"))).result();
    const second = await (await scripted.streamFn(scripted.model, contextWith("2"))).result();
    expect(first.content.map((block) => block.type === "toolCall" && block.id)).toEqual(["call_1"]);
    expect(second.content.map((block) => block.type === "toolCall" && block.id)).toEqual(["mine", "call_2"]);
    const other = createScriptedModel([response([toolCall("a", {})])]);
    const fresh = await (await other.streamFn(other.model, contextWith("1"))).result();
    expect(fresh.content[0]).toMatchObject({ id: "call_1" });
  });

  it("gives each event its own partial that grows with the content", async () => {
    const scripted = createScriptedModel([response([text("one two"), toolCall("t", { a: "xxxxxxxxxxxxxxxx" })])]);
    const events = await collectEvents(await scripted.streamFn(scripted.model, contextWith("hi")));
    const partials = events.flatMap((event) => ("partial" in event ? [event.partial] : []));

    expect(partials[0].content).toEqual([]);
    const textSoFar = partials.map((partial) =>
      partial.content[0]?.type === "text" ? partial.content[0].text : undefined,
    );
    expect(textSoFar.slice(0, 5)).toEqual([undefined, "", "one", "one two", "one two"]);
    expect(new Set(partials).size).toBe(partials.length);
    const lengths = partials.map((partial) => partial.content.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    const argsSoFar = events.flatMap((event) =>
      event.type === "toolcall_delta" && event.partial.content[1]?.type === "toolCall"
        ? [event.partial.content[1].arguments]
        : [],
    );
    expect(argsSoFar.at(-1)).toEqual({ a: "xxxxxxxxxxxxxxxx" });
    // Partial JSON is parsed as it streams, as pi-ai providers do: `{"a":"xxxx` gives { a: "xxxx" }.
    expect(argsSoFar[0]).toEqual({ a: "xxxx" });
    expect(argsSoFar.map((args) => String(args.a ?? "").length)).toEqual([4, 14, 16]);
    // Mutating a kept partial's block while it streams does not change later ones.
    (partials[2].content[0] as { text: string }).text = "changed";
    expect((partials[3].content[0] as { text: string }).text).toBe("one two");
    expect((partials[4].content[0] as { text: string }).text).toBe("one two");
    // A block that has ended is one object in every later partial (they are read-only); the final message is a copy.
    const afterText = partials.slice(5);
    expect(new Set(afterText.map((partial) => partial.content[0])).size).toBe(1);
    const final = events.at(-1) as { type: "done"; message: { content: unknown[] } };
    expect(final.message.content[0]).not.toBe(afterText[0]!.content[0]);
    expect(final.message.content[0]).toEqual({ type: "text", text: "one two" });
  });

  it("streams a long argument in at most 100 deltas by default, whose concatenation is its JSON", async () => {
    const long = { content: "x".repeat(5_000) };
    const scripted = createScriptedModel([response([toolCall("write", long)])]);
    const events = await collectEvents(await scripted.streamFn(scripted.model, contextWith("hi")));
    const deltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.delta] : []));
    // 10 characters a time would be 502 deltas.
    expect(deltas.length).toBeGreaterThan(90);
    expect(deltas.length).toBeLessThanOrEqual(100);
    expect(deltas.join("")).toBe(JSON.stringify(long));
    const end = events.find((event) => event.type === "toolcall_end") as { toolCall: { arguments: unknown } };
    expect(end.toolCall.arguments).toEqual(long);
  });

  it("resolves result() to the message of the terminal event, with the given usage", async () => {
    const usage = { ...emptyUsage(), input: 12, output: 3, totalTokens: 15 };
    const scripted = createScriptedModel([response("fine", { usage, stopReason: "length", responseId: "resp_9" })]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const [events, final] = await Promise.all([collectEvents(stream), stream.result()]);
    const done = events.at(-1);
    expect(done?.type === "done" && done.message).toBe(final);
    expect(done?.type === "done" && done.reason).toBe("length");
    expect(final).toMatchObject({ stopReason: "length", usage, responseId: "resp_9" });
  });

  it("ends with an error event for a response scripted with stopReason error", async () => {
    const scripted = createScriptedModel([response("partial", { stopReason: "error", errorMessage: "boom" })]);
    const events = await collectEvents(await scripted.streamFn(scripted.model, contextWith("hi")));
    const last = events.at(-1);
    expect(last).toMatchObject({
      type: "error",
      reason: "error",
      error: { stopReason: "error", errorMessage: "boom" },
    });
  });

  it("accepts a string and an assistant message as entries", async () => {
    const scripted = createScriptedModel(["plain", assistantMessage([toolCall("x", { n: 1 }, { id: "t1" })])]);
    const first = await (await scripted.streamFn(scripted.model, contextWith("1"))).result();
    const second = await (await scripted.streamFn(scripted.model, contextWith("2"))).result();
    expect(first.content).toEqual([{ type: "text", text: "plain" }]);
    expect(second).toMatchObject({
      stopReason: "toolUse",
      content: [{ type: "toolCall", id: "t1", name: "x", arguments: { n: 1 } }],
    });
  });

  it("reports the requested model's identity on its messages", async () => {
    const scripted = createScriptedModel(["hi"]);
    const other = { ...scripted.model, api: "faux-api", provider: "acme", id: "acme-1" };
    const final = await (await scripted.streamFn(other, contextWith("hi"))).result();
    expect(final).toMatchObject({ api: "faux-api", provider: "acme", model: "acme-1" });
  });

  it("never completes inside the call: events arrive asynchronously without timers", async () => {
    const clock = createVirtualClock();
    const scripted = createScriptedModel(["a b"], { clock });
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    let settled = false;
    void stream.result().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await flushMicrotasks();
    expect(settled).toBe(true);
    expect(clock.pendingCount()).toBe(0);
  });

  it("waits eventDelayMs on the injected clock before each event", async () => {
    const clock = createVirtualClock(1_000);
    const scripted = createScriptedModel([response("a b", { eventDelayMs: 100 })], { clock });
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of stream) seen.push(event.type);
    })();
    await flushMicrotasks();
    expect(seen).toEqual([]);
    await clock.advance(100);
    expect(seen).toEqual(["start"]);
    await clock.advance(250);
    expect(seen).toEqual(["start", "text_start", "text_delta"]);
    await clock.runAll();
    await reading;
    expect(seen).toEqual(["start", "text_start", "text_delta", "text_delta", "text_end", "done"]);
    expect(clock.now()).toBe(1_600);
    expect((await stream.result()).timestamp).toBe(1_000);
  });

  it("takes the default delay and chunk size from the model options", async () => {
    const clock = createVirtualClock();
    const scripted = createScriptedModel(["abcd"], { clock, eventDelayMs: 10, chunkSize: 2 });
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = collectEvents(stream);
    await clock.runAll();
    expect((await events).flatMap((event) => (event.type === "text_delta" ? [event.delta] : []))).toEqual(["ab", "cd"]);
    expect(clock.now()).toBe(60);
  });

  it("describes a zero-cost scripted model and accepts overrides", () => {
    const { model } = createScriptedModel([], { model: { reasoning: true, maxTokens: 512 } });
    expect(model).toMatchObject({
      id: "scripted-model",
      api: "scripted",
      provider: "scripted",
      reasoning: true,
      maxTokens: 512,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    expect(model.contextWindow).toBeGreaterThan(0);
  });

  it("rejects a broken response description where it is written", () => {
    expect(() => response("x", { chunkSize: 0 })).toThrow(RangeError);
    expect(() => response("x", { eventDelayMs: -1 })).toThrow(RangeError);
  });
});

async function finalMessageOf(events: Awaited<ReturnType<typeof collectEvents>>): Promise<AssistantMessage> {
  const last = events.at(-1);
  if (last?.type !== "done") throw new Error(`expected done, got ${last?.type}`);
  return last.message;
}
