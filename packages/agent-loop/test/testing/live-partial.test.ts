import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { createScriptedModel, response, text, toolCall } from "../../src/testing/index.js";
import { contextWith } from "./stream-test-kit.js";

const partialOf = (event: AssistantMessageEvent): AssistantMessage | undefined =>
  "partial" in event ? event.partial : event.type === "done" ? event.message : undefined;

describe("scripted model, livePartial: one message written ahead, as pi-ai's providers stream", () => {
  it("every event's partial and the final message are one object, written up to the newest queued event", async () => {
    const scripted = createScriptedModel([response([text("alpha beta gamma"), toolCall("t", { a: 1 })])], {
      livePartial: true,
    });
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const events: AssistantMessageEvent[] = [];
    const shownAtRead: string[] = [];
    for await (const event of stream) {
      events.push(event);
      const partial = partialOf(event);
      const first = partial?.content[0];
      shownAtRead.push(first?.type === "text" ? first.text : "");
      // A slow consumer: the model goes on writing meanwhile.
      for (let tick = 0; tick < 5; tick++) await Promise.resolve();
    }

    const messages = new Set(events.map(partialOf));
    expect(messages.size).toBe(1);
    const final = await stream.result();
    expect(messages.has(final)).toBe(true);
    expect(final.content).toEqual([
      { type: "text", text: "alpha beta gamma" },
      { type: "toolCall", id: "call_1", name: "t", arguments: { a: 1 } },
    ]);
    // The first delta said "alpha"; the message already held more when the consumer read it.
    const firstDelta = events.findIndex((event) => event.type === "text_delta");
    expect(shownAtRead[firstDelta]).not.toBe("alpha");
    expect("alpha beta gamma".startsWith(shownAtRead[firstDelta])).toBe(true);
  });

  it("a content block held past its event grows in place", async () => {
    const scripted = createScriptedModel([response("one two three")], { livePartial: true });
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    let held: { type: string; text?: string } | undefined;
    for await (const event of stream) {
      if (event.type === "text_start") held = event.partial.content[0] as typeof held;
    }
    expect(held).toEqual({ type: "text", text: "one two three" });
  });

  it("without the option each event carries a snapshot of its own", async () => {
    const scripted = createScriptedModel([response("one two three")]);
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"));
    const texts: string[] = [];
    for await (const event of stream) {
      if (event.type === "text_delta") {
        const block = event.partial.content[0];
        texts.push(block.type === "text" ? block.text : "");
      }
    }
    expect(texts).toEqual(["one", "one two", "one two three"]);
  });

  it("an abort ends the stream with the live message itself, aborted", async () => {
    const scripted = createScriptedModel([response("one two three four", { eventDelayMs: 1 })], {
      livePartial: true,
    });
    const controller = new AbortController();
    const stream = await scripted.streamFn(scripted.model, contextWith("hi"), { signal: controller.signal });
    const seen: AssistantMessage[] = [];
    for await (const event of stream) {
      const partial = partialOf(event) ?? (event.type === "error" ? event.error : undefined);
      if (partial) seen.push(partial);
      if (event.type === "text_delta") controller.abort();
    }
    const final = await stream.result();
    expect(final.stopReason).toBe("aborted");
    expect(final.errorMessage).toBe("Request was aborted");
    expect(seen.every((message) => message === final)).toBe(true);
    expect(final.content).toEqual([{ type: "text", text: "one" }]);
  });

  it("an Agent whose listener fails at the first delta keeps only the text it was shown", async () => {
    const scripted = createScriptedModel([response("«r1» alpha beta gamma")], { livePartial: true });
    const agent = new Agent({ initialState: { model: scripted.model }, streamFn: scripted.streamFn });
    let delivered = "";
    agent.subscribe((event) => {
      if (event.type !== "message_update" || event.assistantMessageEvent.type !== "text_delta") return;
      delivered += event.assistantMessageEvent.delta;
      throw new Error("the host listener failed");
    });

    await agent.prompt("hi");

    const final = agent.state.messages.at(-1) as AssistantMessage;
    expect(delivered).toBe("«r1»");
    expect(final.stopReason).toBe("error");
    expect(final.content).toEqual([{ type: "text", text: "«r1»" }]);
  });

  it("refuses a livePartial or strict that is no boolean, naming it", () => {
    expect(() => createScriptedModel([], { livePartial: "yes" as never })).toThrow(
      new TypeError('createScriptedModel: options.livePartial must be a boolean, got "yes"'),
    );
    expect(() => createScriptedModel([], { strict: 1 as never })).toThrow(
      new TypeError("createScriptedModel: options.strict must be a boolean, got 1"),
    );
  });
});
