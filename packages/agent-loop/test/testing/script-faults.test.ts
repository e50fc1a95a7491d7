import { getEventListeners } from "node:events";
import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
  createScriptedModel,
  createVirtualClock,
  endWithoutDone,
  errorAfter,
  eventsAfterDone,
  hang,
  reject,
  requestText,
  response,
  throwSync,
  toolCall,
  withoutStart,
  type RecordedRequest,
} from "../../src/testing/index.js";
import { collectEvents, contextWith, countingAbortController, flushMicrotasks, typesOf } from "./stream-test-kit.js";

describe("scripted model: faults", () => {
  it("errorAfter(n) streams n events, then an error carrying the partial so far", async () => {
    const scripted = createScriptedModel([errorAfter(3, "upstream reset", { response: "alpha beta gamma" })]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = await collectEvents(stream);

    expect(typesOf(events)).toEqual(["start", "text_start", "text_delta", "error"]);
    const last = events[3];
    expect(last).toMatchObject({
      type: "error",
      reason: "error",
      error: { stopReason: "error", errorMessage: "upstream reset" },
    });
    if (last.type !== "error") return;
    expect(last.error.content).toEqual([{ type: "text", text: "alpha" }]);
    expect(await stream.result()).toBe(last.error);
  });

  it("errorAfter(0) ends with the error at once, with empty content", async () => {
    const scripted = createScriptedModel([errorAfter(0)]);
    const events = await collectEvents(await scripted.streamFn(scripted.model, contextWith("hi")));
    expect(typesOf(events)).toEqual(["error"]);
    expect(events[0]).toMatchObject({
      error: { content: [], stopReason: "error", errorMessage: "Scripted stream error" },
    });
    expect(() => errorAfter(-1)).toThrow(RangeError);
  });

  it("errorAfter(n) past the end streams every event, then the error instead of done", async () => {
    const scripted = createScriptedModel([errorAfter(100, "late", { response: response([toolCall("t", { a: 1 })]) })]);
    const events = await collectEvents(await scripted.streamFn(scripted.model, contextWith("hi")));
    expect(typesOf(events)).toEqual(["start", "toolcall_start", "toolcall_delta", "toolcall_end", "error"]);
  });

  it("throwSync makes the stream function throw synchronously, after recording the request", () => {
    const failure = new Error("sync boom");
    const scripted = createScriptedModel([throwSync(failure)]);
    expect(() => scripted.streamFn(scripted.model, contextWith("hi"))).toThrow(failure);
    expect(scripted.requests).toHaveLength(1);
    expect(scripted.remaining()).toBe(0);
  });

  it("reject makes the stream function return a rejected promise", async () => {
    const failure = new Error("async boom");
    const scripted = createScriptedModel([reject(failure)]);
    let returned: unknown;
    expect(() => {
      returned = scripted.streamFn(scripted.model, contextWith("hi"));
    }).not.toThrow();
    await expect(returned).rejects.toBe(failure);
    expect(scripted.requests).toHaveLength(1);
  });

  it("hang emits nothing until the signal aborts, then ends as aborted and removes its listener", async () => {
    const { controller, signal, activeListeners, addedListeners } = countingAbortController();
    const scripted = createScriptedModel([hang()]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"), { signal });
    const seen: AssistantMessageEvent[] = [];
    let ended = false;
    const reading = (async () => {
      for await (const event of stream) seen.push(event);
      ended = true;
    })();

    await flushMicrotasks();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([]);
    expect(ended).toBe(false);
    expect(activeListeners()).toBe(1);

    controller.abort();
    await reading;
    expect(typesOf(seen)).toEqual(["error"]);
    expect(seen[0]).toMatchObject({
      type: "error",
      reason: "aborted",
      error: { stopReason: "aborted", errorMessage: "Request was aborted", content: [] },
    });
    expect(addedListeners()).toBe(1);
    expect(activeListeners()).toBe(0);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("hang refuses options that are no object (hang(3) is no event count)", () => {
    expect(() => hang(3 as never)).toThrow(
      new TypeError("hang(): expected an options object { afterEvents, response }, got 3"),
    );
  });

  it("hang({ afterEvents }) streams those events first, and the abort keeps their partial", async () => {
    const { controller, signal } = countingAbortController();
    const scripted = createScriptedModel([hang({ afterEvents: 3, response: "first second" })]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"), { signal });
    const events = collectEvents(stream);
    await flushMicrotasks();
    controller.abort();
    const seen = await events;
    expect(typesOf(seen)).toEqual(["start", "text_start", "text_delta", "error"]);
    expect((await stream.result()).content).toEqual([{ type: "text", text: "first" }]);
  });

  it("an abort mid-stream stops the response and ends it as aborted, cancelling the pending timer", async () => {
    const clock = createVirtualClock();
    const { controller, signal, activeListeners } = countingAbortController();
    const scripted = createScriptedModel([response("one two three four", { eventDelayMs: 10 })], { clock });
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"), { signal });
    const events = collectEvents(stream);
    await clock.advance(30);
    controller.abort();
    const seen = await events;
    expect(typesOf(seen)).toEqual(["start", "text_start", "text_delta", "error"]);
    expect(seen.at(-1)).toMatchObject({
      reason: "aborted",
      error: { stopReason: "aborted", content: [{ type: "text", text: "one" }] },
    });
    expect(clock.pendingCount()).toBe(0);
    expect(activeListeners()).toBe(0);
  });

  it("a signal aborted before the call ends the stream as aborted with no other event", async () => {
    const { controller, signal, activeListeners } = countingAbortController();
    controller.abort();
    const scripted = createScriptedModel(["never streamed"]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"), { signal });
    const seen = await collectEvents(stream);
    expect(typesOf(seen)).toEqual(["error"]);
    expect(seen[0]).toMatchObject({
      reason: "aborted",
      error: { stopReason: "aborted", errorMessage: "Request was aborted" },
    });
    expect(activeListeners()).toBe(0);
  });

  it("leaves no abort listener behind after a normal response", async () => {
    const { signal, activeListeners, addedListeners } = countingAbortController();
    const scripted = createScriptedModel(["a", "b", "c"]);
    for (let index = 0; index < 3; index += 1) {
      await (await scripted.streamFn(scripted.model, contextWith("hi"), { signal })).result();
    }
    expect(addedListeners()).toBe(3);
    expect(activeListeners()).toBe(0);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("endWithoutDone stops iteration without a terminal event; result() stays pending", async () => {
    const scripted = createScriptedModel([endWithoutDone("cut here")]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = await collectEvents(stream);
    expect(typesOf(events)).toEqual(["start", "text_start", "text_delta", "text_delta", "text_end"]);
    const outcome = await Promise.race([
      stream.result().then(() => "settled"),
      flushMicrotasks().then(() => "pending"),
    ]);
    expect(outcome).toBe("pending");
  });

  it("endWithoutDone({ resolveResult: true }) resolves result() with the message done would have carried", async () => {
    const scripted = createScriptedModel([endWithoutDone("cut here", { resolveResult: true })]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = await collectEvents(stream);
    expect(events.some((event) => event.type === "done" || event.type === "error")).toBe(false);
    expect(await stream.result()).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "cut here" }] });
  });

  it("withoutStart streams the block events and done, but no start", async () => {
    const scripted = createScriptedModel([withoutStart("no opening"), withoutStart(response([]))]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    expect(typesOf(await collectEvents(stream))).toEqual([
      "text_start",
      "text_delta",
      "text_delta",
      "text_end",
      "done",
    ]);
    expect((await stream.result()).content).toEqual([{ type: "text", text: "no opening" }]);
    const empty = await scripted.streamFn(scripted.model, contextWith("hi"));
    expect(typesOf(await collectEvents(empty))).toEqual(["done"]);
  });

  it("eventsAfterDone pushes extra events that pi-ai's EventStream drops", async () => {
    const scripted = createScriptedModel([eventsAfterDone("tidy")]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = await collectEvents(stream);
    expect(typesOf(events)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    expect((await stream.result()).content).toEqual([{ type: "text", text: "tidy" }]);
  });

  it("eventsAfterDone({ reachConsumer: true }) yields the extra events after done to an iterating consumer", async () => {
    const scripted = createScriptedModel([eventsAfterDone("tidy", { reachConsumer: true })]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events = await collectEvents(stream);
    expect(typesOf(events)).toEqual(["start", "text_start", "text_delta", "text_end", "done", "text_delta", "done"]);
    const [firstDone, secondDone] = events.filter((event) => event.type === "done");
    expect(firstDone).not.toEqual(secondDone);
    expect(await stream.result()).toBe(firstDone.type === "done" ? firstDone.message : undefined);
  });

  it("an exhausted script ends each extra request with an error naming it; it never throws or hangs", async () => {
    const scripted = createScriptedModel(["only one"]);
    await (await scripted.streamFn(scripted.model, contextWith("1"))).result();
    expect(scripted.remaining()).toBe(0);
    for (const number of [2, 3]) {
      const stream = await scripted.streamFn(scripted.model, contextWith(String(number)));
      const events = await collectEvents(stream);
      expect(typesOf(events)).toEqual(["error"]);
      const final = await stream.result();
      expect(final.stopReason).toBe("error");
      expect(final.errorMessage).toContain(`no response left for request #${number}`);
    }
    expect(scripted.requests).toHaveLength(3);
  });

  it("a function entry decides from the request, and may return a fault", async () => {
    const seenIndexes: number[] = [];
    const decide = (request: RecordedRequest) => {
      seenIndexes.push(request.index);
      return requestText(request).includes("fail") ? errorAfter(1, "decided to fail") : `echo: ${requestText(request)}`;
    };
    const scripted = createScriptedModel([decide, decide]);
    const ok = await (await scripted.streamFn(scripted.model, contextWith("hello"))).result();
    const failed = await (await scripted.streamFn(scripted.model, contextWith("please fail"))).result();
    expect(ok.content).toEqual([{ type: "text", text: "echo: hello" }]);
    expect(failed).toMatchObject({ stopReason: "error", errorMessage: "decided to fail" });
    expect(seenIndexes).toEqual([0, 1]);
  });

  it("a function entry may return throwSync, and a throwing function ends the stream with an error", async () => {
    const scripted = createScriptedModel([
      () => throwSync(new Error("chosen")),
      () => {
        throw new Error("script bug");
      },
    ]);
    expect(() => scripted.streamFn(scripted.model, contextWith("1"))).toThrow("chosen");
    const final = await (await scripted.streamFn(scripted.model, contextWith("2"))).result();
    expect(final).toMatchObject({ stopReason: "error" });
    expect(final.errorMessage).toContain("request #2 threw: script bug");
  });

  it("a malformed entry is refused where the script is written, naming it", () => {
    const expected = " must be text, response(...), a fault such as hang(...), an AssistantMessage or a function";
    expect(() => createScriptedModel(["ok", 5 as never])).toThrow(
      new TypeError(`createScriptedModel: script[1]${expected}, got 5`),
    );
    expect(() => createScriptedModel([null as never])).toThrow(
      new TypeError(`createScriptedModel: script[0]${expected}, got null`),
    );
    expect(() => createScriptedModel([{ toolCalls: [] } as never])).toThrow(
      new TypeError(`createScriptedModel: script[0]${expected}, got an object of kind undefined`),
    );
    expect(() => createScriptedModel([{ kind: "response", content: "x" } as never])).toThrow(
      new TypeError("createScriptedModel: script[0].content must be an array of content blocks"),
    );
    expect(() => createScriptedModel([{ role: "assistant", content: "x" } as never])).toThrow(
      new TypeError("createScriptedModel: script[0].content must be an array of content blocks"),
    );
    expect(() => createScriptedModel("hello" as never)).toThrow(
      new TypeError('createScriptedModel: script must be an array of entries, got "hello"'),
    );
    expect(() => createScriptedModel(null as never)).toThrow(
      new TypeError("createScriptedModel: script must be an array of entries, got null"),
    );
    const scripted = createScriptedModel(["one"]);
    expect(() => scripted.append("two", 7 as never)).toThrow(
      new TypeError(`ScriptedModel.append: entries[1]${expected}, got 7`),
    );
    expect(scripted.remaining()).toBe(1);
  });

  it("an entry function that returns a malformed entry ends that request's stream with an error naming it", async () => {
    const scripted = createScriptedModel([() => 5 as never]);
    const final = await (await scripted.streamFn(scripted.model, contextWith("1"))).result();
    expect(final).toMatchObject({ stopReason: "error" });
    expect(final.errorMessage).toContain(
      "Script entry function for request #1 returned a malformed entry: the entry must be text, response(...)",
    );
  });

  it("append adds entries after the script and remaining counts what is left", async () => {
    const scripted = createScriptedModel(["one"]);
    scripted.append("two", errorAfter(0));
    expect(scripted.remaining()).toBe(3);
    await (await scripted.streamFn(scripted.model, contextWith("1"))).result();
    const second = await (await scripted.streamFn(scripted.model, contextWith("2"))).result();
    expect(second.content).toEqual([{ type: "text", text: "two" }]);
    expect(scripted.remaining()).toBe(1);
  });
});
