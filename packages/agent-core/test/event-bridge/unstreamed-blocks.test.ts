/**
 * A provider may send some blocks of a response as deltas and others only
 * whole, at their `text_end` or `thinking_end` (or only in its final
 * message): whatever the mix, the host reading `stream.resp` chunks sees
 * each block's text exactly once, in the response's order.
 */
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  createAssistantMessageEventStream,
} from "@mariozechner/pi-ai";
import { PiTurnRunner } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { createRecordingEventWriter } from "../../src/testing/index.js";

/** One block of a scripted response: its text, sent as deltas (`streamed`), only at its end (`atEnd`), or only in the final message (`never`). */
interface BlockPlan {
  kind: "text" | "thinking";
  text: string;
  sent: "streamed" | "atEnd" | "never";
  redacted?: boolean;
}

const USAGE = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function messageOf(content: AssistantMessage["content"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "scripted",
    provider: "scripted",
    model: "scripted-model",
    usage: USAGE,
    stopReason: "stop",
    timestamp: 1,
  };
}

/** The events a provider sends for `plans`, as pi-ai's providers build them (one live partial). */
function eventsOf(plans: readonly BlockPlan[]): AssistantMessageEvent[] {
  const final = messageOf(
    plans.map((plan) =>
      plan.kind === "text"
        ? { type: "text", text: plan.text }
        : { type: "thinking", thinking: plan.text, ...(plan.redacted && { redacted: true }) },
    ),
  );
  const partial = messageOf([]);
  const events: AssistantMessageEvent[] = [{ type: "start", partial }];
  plans.forEach((plan, contentIndex) => {
    if (plan.sent === "never") return;
    const block = final.content[contentIndex]!;
    partial.content.push(block);
    const kind = plan.kind;
    events.push({ type: `${kind}_start`, contentIndex, partial } as AssistantMessageEvent);
    if (plan.sent === "streamed")
      for (const word of plan.text.split(/(?= )/))
        events.push({ type: `${kind}_delta`, contentIndex, delta: word, partial } as AssistantMessageEvent);
    events.push({ type: `${kind}_end`, contentIndex, content: plan.text, partial } as AssistantMessageEvent);
  });
  events.push({ type: "done", reason: "stop", message: final });
  return events;
}

async function chunksFor(plans: readonly BlockPlan[]) {
  const streamFn: StreamFn = () => {
    const stream = createAssistantMessageEventStream();
    for (const event of eventsOf(plans)) stream.push(event);
    return stream;
  };
  const writer = createRecordingEventWriter();
  const outcome = await new PiTurnRunner().runTurn({
    sessionId: "s",
    turnId: "t",
    systemPrompt: "",
    userMessage: { text: "hi" },
    llm: { model: { id: "scripted-model", api: "scripted", provider: "scripted" } as never, streamFn },
    llmRetry: false,
    eventWriter: writer,
  });
  expect(outcome.kind).toBe("completed");
  const [id] = writer.messageIds();
  return writer
    .chunksOf(id!)
    .flatMap((chunk) => (chunk.kind === "text" || chunk.kind === "thinking" ? [`${chunk.kind}:${chunk.delta}`] : []));
}

/** What the host shows: each kind's chunks joined. */
const shown = (chunks: string[], kind: "text" | "thinking") =>
  chunks
    .filter((chunk) => chunk.startsWith(`${kind}:`))
    .map((chunk) => chunk.slice(kind.length + 1))
    .join("");

describe("a response whose blocks came partly without deltas", () => {
  it("thinking streamed, text only at text_end: the text is shown once, at its end", async () => {
    const chunks = await chunksFor([
      { kind: "thinking", text: "Let me think", sent: "streamed" },
      { kind: "text", text: "The answer", sent: "atEnd" },
    ]);
    expect(chunks).toEqual(["thinking:Let", "thinking: me", "thinking: think", "text:The answer"]);
  });

  it("thinking only at thinking_end, text streamed: the thinking is shown once, before the text", async () => {
    const chunks = await chunksFor([
      { kind: "thinking", text: "Let me think", sent: "atEnd" },
      { kind: "text", text: "The answer", sent: "streamed" },
    ]);
    expect(chunks).toEqual(["thinking:Let me think", "text:The", "text: answer"]);
  });

  it("three text parts of which only the middle one came without deltas: each is shown once, in order", async () => {
    const chunks = await chunksFor([
      { kind: "text", text: "First part.", sent: "streamed" },
      { kind: "text", text: " Second part.", sent: "atEnd" },
      { kind: "text", text: " Third part.", sent: "streamed" },
    ]);
    expect(shown(chunks, "text")).toBe("First part. Second part. Third part.");
  });

  it("thinking streamed, text only in the final message: the text is shown once, at the response's end", async () => {
    const chunks = await chunksFor([
      { kind: "thinking", text: "Hmm", sent: "streamed" },
      { kind: "text", text: "Done.", sent: "never" },
    ]);
    expect(chunks).toEqual(["thinking:Hmm", "text:Done."]);
  });

  it("a redacted thinking block (its text a placeholder) shows nothing; a fully streamed response nothing twice", async () => {
    expect(
      await chunksFor([
        { kind: "thinking", text: "[Reasoning redacted]", sent: "atEnd", redacted: true },
        { kind: "text", text: "Answer", sent: "streamed" },
      ]),
    ).toEqual(["text:Answer"]);
    const streamed = await chunksFor([
      { kind: "thinking", text: "a b", sent: "streamed" },
      { kind: "text", text: "c d", sent: "streamed" },
    ]);
    expect(streamed).toEqual(["thinking:a", "thinking: b", "text:c", "text: d"]);
  });
});
