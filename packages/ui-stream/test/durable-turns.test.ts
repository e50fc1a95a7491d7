/*
 * What only durable turns log: approvals (answered yes or no), and the
 * model request sent again after a crash, whose interrupted attempt the
 * stream marks as superseded. Read by the AI SDK's own parser and reader.
 */
import { describe, expect, it } from "vitest";
import { type TurnkitUIMessage, UIStreamError, toUIMessageChunks, withoutSupersededParts } from "../src/index.js";
import { collectChunks, readEventsWithAiSdk, readWithAiSdk, sseOf, textOf } from "./support/ai-sdk-reader.js";
import { durableLog } from "./support/durable-log.js";

function deployTurn(result: "approved" | "denied") {
  const log = durableLog();
  log.running();
  log.text("t1#m1", "I will deploy once you approve. ");
  log.toolCall("t1#m1", "call_1", "deploy", "preparing", { service: "web" });
  log.approvalAsked("call_1", "deploy", { service: "web" });
  log.approvalResult("call_1", result);
  if (result === "approved") log.toolCall("t1#m1", "call_1", "deploy", "started", { service: "web" });
  log.toolResult(
    "t1#m1",
    "call_1",
    "deploy",
    result === "approved" ? "web deployed" : "A person denied this call.",
    result === "denied",
  );
  log.finish("t1#m1", "toolUse");
  log.text("t1#m2", result === "approved" ? "Done: web deployed." : "Not deployed.");
  log.finish("t1#m2");
  log.completed();
  return log.events;
}

const toolPart = (message: TurnkitUIMessage) => message.parts.find((part) => part.type === "tool-deploy") as any;

describe("durable turns as the AI SDK UI message stream", () => {
  it("an approval request is the AI SDK's approval part; approved, the call's output follows", async () => {
    const events = deployTurn("approved");
    const asked = events.find((e) => e.type === "action.required")!;
    const untilAsked = await readWithAiSdk(sseOf((await collectChunks(events)).filter((c) => c.seq <= asked.seq)));
    expect(toolPart(untilAsked.message)).toMatchObject({
      state: "approval-requested",
      approval: { id: "approval:call_1" },
      input: { service: "web" },
    });
    const { message } = await readEventsWithAiSdk(events);
    expect(toolPart(message)).toMatchObject({
      state: "output-available",
      approval: { id: "approval:call_1" },
      output: { content: [{ type: "text", text: "web deployed" }] },
    });
    expect(textOf(message)).toBe("I will deploy once you approve. Done: web deployed.");
  });

  it("denied, the call is the AI SDK's output-denied", async () => {
    const { message } = await readEventsWithAiSdk(deployTurn("denied"));
    expect(toolPart(message)).toMatchObject({ state: "output-denied", approval: { id: "approval:call_1" } });
  });

  it("after a crash the interrupted attempt is marked superseded, and the answer reads once without it, live or replayed", async () => {
    const log = durableLog("notes", "t1");
    log.running();
    log.text("t1#m1", "Writing the note. ");
    log.toolCall("t1#m1", "call_1", "write_note", "preparing", { note: "x" });
    log.toolCall("t1#m1", "call_1", "write_note", "started", { note: "x" });
    log.toolResult("t1#m1", "call_1", "write_note", "note saved");
    log.finish("t1#m1", "toolUse");
    const from = log.text("t1#m2", "Done: note ");
    log.toolCall("t1#m2", "call_2", "tag", "preparing", { tag: "a" });
    const to = log.text("t1#m2", "saved, and");
    // The worker died here; another one sends the request again.
    log.resumed(from, to);
    log.text("t1#m2.r1", "Done: note ");
    log.toolCall("t1#m2.r1", "call_2", "tag", "preparing", { tag: "a" });
    log.toolCall("t1#m2.r1", "call_2", "tag", "started", { tag: "a" });
    log.toolResult("t1#m2.r1", "call_2", "tag", "tagged");
    log.text("t1#m2.r1", "saved, and tagged.");
    log.finish("t1#m2.r1");
    log.completed();

    const { message, errors } = await readEventsWithAiSdk(log.events);
    expect(errors).toEqual([]);
    expect(message.parts.find((p) => p.type === "data-turnkit-superseded")).toMatchObject({
      data: { fromSeq: from, toSeq: to, messageIds: ["t1#m2"] },
    });
    // Without the filter a page would show the interrupted text too.
    expect(textOf(message)).toBe("Writing the note. Done: note saved, andDone: note saved, and tagged.");
    const shown = withoutSupersededParts(message);
    expect(textOf(shown)).toBe("Writing the note. Done: note saved, and tagged.");
    expect(shown.parts.map((p) => p.type)).toEqual([
      "step-start",
      "text",
      "tool-write_note",
      "step-start",
      "text",
      "tool-tag",
      "text",
    ]);
    expect((shown.parts[5] as any).state).toBe("output-available");
    expect(withoutSupersededParts(shown)).toBe(shown);

    // A reader that had seen the interrupted attempt, resuming after it, ends with the same message.
    const all = await collectChunks(log.events);
    const resumed = await readWithAiSdk(
      sseOf([...all.filter((c) => c.seq <= to), ...(await collectChunks(log.events, to))]),
    );
    expect(resumed.message).toEqual(message);
  });

  it("events that cannot make a stream are refused with a typed error naming the problem", async () => {
    const log = durableLog();
    log.running();
    log.text("t1#m1", "a");
    const drain = async (events: typeof log.events) => {
      for await (const _ of toUIMessageChunks(events));
    };
    await expect(drain(log.events.slice(1))).rejects.toSatisfy(
      (e) => UIStreamError.isInstance(e) && e.code === "invalid_events" && /must start with/.test(e.message),
    );
    await expect(drain([log.events[0], log.events[1], log.events[1]])).rejects.toSatisfy(
      (e) => UIStreamError.isInstance(e) && e.code === "out_of_order" && /seq 2 does not follow seq 2/.test(e.message),
    );
    const other = { ...log.events[1], seq: 3, turnId: "t2" };
    await expect(drain([log.events[0], other])).rejects.toSatisfy(
      (e) => UIStreamError.isInstance(e) && e.code === "out_of_order" && /belongs to turn t2/.test(e.message),
    );
    log.completed();
    log.text("t1#m1", "late");
    await expect(drain(log.events)).rejects.toSatisfy(
      (e) =>
        UIStreamError.isInstance(e) &&
        e.code === "invalid_events" &&
        /follows the turn's terminal status/.test(e.message),
    );
  });
});
