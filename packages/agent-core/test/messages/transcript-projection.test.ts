import { describe, expect, it } from "vitest";
import type { AssistantMessage, ImageContent, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import { assistantMessage, text, toolCall, toolResultMessage, userMessage } from "@turnkit/agent-loop/testing";
import { projectAgentMessagesForModel } from "../../src/messages/project-messages.js";
import { TranscriptProjection } from "../../src/messages/transcript-projection.js";
import { markDroppedResponse } from "../../src/messages/turn-messages.js";

/** A 64×64 PNG header: enough for its size to be read. */
function image(name: string): ImageContent {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "latin1");
  bytes.writeUInt32BE(64, 16);
  bytes.writeUInt32BE(64, 20);
  return { type: "image", data: bytes.toString("base64"), mimeType: "image/png", fileName: name } as ImageContent;
}

/** Step `step` of a long scripted transcript: every kind of message the projection treats differently. */
function stepMessages(step: number): AgentMessage[] {
  const id = `c${step}`;
  const messages: AgentMessage[] = [];
  if (step % 5 === 0)
    messages.push({ ...userMessage(`batch ${step}`, { timestamp: step }), batchId: `b${step}` } as AgentMessage);
  if (step % 5 === 0)
    messages.push({
      ...userMessage([text("more"), image(`shot-${step}.png`)], { timestamp: step }),
      batchId: `b${step}`,
    } as AgentMessage);
  if (step % 7 === 0) messages.push({ role: "hidden", content: `reminder ${step}`, timestamp: step });
  if (step % 11 === 0) messages.push({ role: "host", kind: "note", timestamp: step });
  if (step % 13 === 0)
    messages.push(assistantMessage("broken", { stopReason: "error", errorMessage: "500", timestamp: step }));
  const response = assistantMessage([toolCall("read", {}, { id })], { timestamp: step });
  if (step % 17 === 0) markDroppedResponse(response, "retry");
  messages.push(response);
  messages.push(
    toolResultMessage(id, "read", step % 3 === 0 ? [text("shot"), image(`result-${step}.png`)] : "ok", {
      timestamp: step,
    }),
  );
  return messages;
}

describe("TranscriptProjection", () => {
  it.each([true, false])(
    "returns what projectAgentMessagesForModel returns at every length of a growing transcript (messagesMayChangeInPlace %s)",
    (mayChange) => {
      const projection = new TranscriptProjection({ maxImages: 4, messagesMayChangeInPlace: mayChange });
      const transcript: AgentMessage[] = [userMessage("start", { timestamp: 0 })];
      for (let step = 1; step <= 60; step++) {
        transcript.push(...stepMessages(step));
        expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript, { maxImages: 4 }));
      }
    },
  );

  it("projects each message once: later results share the earlier copies, in a fresh array each time", () => {
    const projection = new TranscriptProjection({ messagesMayChangeInPlace: false });
    const transcript: AgentMessage[] = [userMessage("q", { timestamp: 1 }), ...stepMessages(1)];
    const first = projection.project(transcript);
    transcript.push(...stepMessages(2));
    const second = projection.project(transcript);
    expect(second).not.toBe(first);
    expect(second.slice(0, first.length)).toEqual(first);
    first.forEach((message, index) => expect(second[index]).toBe(message));
  });

  it("sees a message changed in place (a hook rewriting a response) when messages may change in place", () => {
    const projection = new TranscriptProjection();
    const response = assistantMessage("draft", { timestamp: 2 }) as AssistantMessage;
    const transcript: AgentMessage[] = [userMessage("q", { timestamp: 1 }), response];
    const before = projection.project(transcript);
    response.content = [{ type: "text", text: "rewritten" }];
    const after = projection.project(transcript);
    expect(after).toEqual(projectAgentMessagesForModel(transcript));
    expect(JSON.stringify(after)).toContain("rewritten");
    expect(before[0]).toBe(after[0]); // the unchanged user message keeps its copy
    markDroppedResponse(response, "retry");
    expect(projection.project(transcript)).toHaveLength(1);
  });

  /** A plain transcript (no batches) with every kind of message the projection keeps or leaves out, and one change in place to it. */
  const inPlaceChanges: [string, (transcript: AgentMessage[]) => void][] = [
    ["a response's content replaced", (t) => ((t[3] as AssistantMessage).content = [text("rewritten")])],
    ["a response marked dropped", (t) => markDroppedResponse(t[3] as AssistantMessage, "retry")],
    ["a failed response now a success", (t) => ((t[6] as AssistantMessage).stopReason = "stop")],
    ["a response now failed", (t) => ((t[3] as AssistantMessage).stopReason = "error")],
    ["a tool result's call id changed to an unknown call", (t) => ((t[4] as ToolResultMessage).toolCallId = "unknown")],
    [
      "a second image pushed into a tool result's content",
      (t) => (t[4] as ToolResultMessage).content.push(image("late.png")),
    ],
    [
      "two user messages put in one batch",
      (t) => ((t[0] as { batchId?: string }).batchId = (t[1] as { batchId?: string }).batchId = "b"),
    ],
    ["a hidden message made a host note", (t) => Object.assign(t[2]!, { role: "host", kind: "note" })],
    ["a host note made a hidden message", (t) => Object.assign(t[7]!, { role: "hidden", content: "now seen" })],
    ["a user message's text replaced", (t) => ((t[1] as UserMessage).content = "other")],
  ];

  it.each(inPlaceChanges)(
    "sees %s when messages may change in place, and projects later messages after it",
    (_name, change) => {
      const transcript: AgentMessage[] = [
        userMessage([text("q"), image("first.png")], { timestamp: 1 }),
        userMessage("and", { timestamp: 1 }),
        { role: "hidden", content: "reminder", timestamp: 1 },
        assistantMessage([toolCall("read", {}, { id: "c1" })], { timestamp: 2 }),
        toolResultMessage("c1", "read", [text("ok")], { timestamp: 3 }),
        assistantMessage("answer", { timestamp: 4 }),
        assistantMessage("broken", { stopReason: "error", errorMessage: "500", timestamp: 5 }),
        { role: "host", kind: "note", timestamp: 6 } as AgentMessage,
      ];
      const projection = new TranscriptProjection({ maxImages: 1 });
      expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript, { maxImages: 1 }));
      transcript.push(userMessage("next", { timestamp: 7 }));
      expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript, { maxImages: 1 }));
      const before = projectAgentMessagesForModel(transcript, { maxImages: 1 });
      change(transcript);
      const expected = projectAgentMessagesForModel(transcript, { maxImages: 1 });
      expect(expected).not.toEqual(before);
      expect(projection.project(transcript)).toEqual(expected);
      transcript.push(...stepMessages(2));
      expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript, { maxImages: 1 }));
    },
  );

  it("starts over when the messages no longer begin with those it projected (a compaction, a replaced request)", () => {
    const projection = new TranscriptProjection({ messagesMayChangeInPlace: false });
    const transcript: AgentMessage[] = [userMessage("q", { timestamp: 1 })];
    for (let step = 1; step <= 10; step++) transcript.push(...stepMessages(step));
    projection.project(transcript);
    const compacted: AgentMessage[] = [userMessage("summary", { timestamp: 20 }), ...transcript.slice(-4)];
    expect(projection.project(compacted)).toEqual(projectAgentMessagesForModel(compacted));
    expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript));
  });

  it("notices an array handed over again that was cut, and cut and grown back, when messages do not change in place", () => {
    const projection = new TranscriptProjection({ messagesMayChangeInPlace: false });
    const transcript: AgentMessage[] = [userMessage("q", { timestamp: 1 })];
    for (let step = 1; step <= 6; step++) transcript.push(...stepMessages(step));
    projection.project(transcript);
    transcript.length -= 3;
    expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript));
    transcript.pop();
    transcript.push(userMessage("instead", { timestamp: 30 }));
    expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript));
    // A new array that begins with the old one's messages (the loop's next run), and one that does not.
    const nextRun = [...transcript, ...stepMessages(7)];
    expect(projection.project(nextRun)).toEqual(projectAgentMessagesForModel(nextRun));
    const rewritten = [...nextRun.slice(0, 3), userMessage("rewritten", { timestamp: 31 }), ...nextRun.slice(4)];
    expect(projection.project(rewritten)).toEqual(projectAgentMessagesForModel(rewritten));
  });

  it("passes a message with exactly a model message's fields as it is when messages do not change in place, and copies every other", () => {
    const plain: AgentMessage[] = [userMessage("q", { timestamp: 1 }), ...stepMessages(1)];
    const withHostFields: AgentMessage[] = [
      { ...userMessage("q", { timestamp: 1 }), messageId: "m1" } as AgentMessage,
      { ...assistantMessage("a", { timestamp: 2 }), note: "host" } as AgentMessage,
      { ...toolResultMessage("c1", "read", "ok", { timestamp: 3 }), details: undefined },
      Object.assign(Object.create({ inherited: true }), userMessage("from a class", { timestamp: 4 })),
    ];
    const trusting = new TranscriptProjection({ messagesMayChangeInPlace: false }).project([
      ...plain,
      ...withHostFields,
    ]);
    const checking = new TranscriptProjection().project([...plain, ...withHostFields]);
    expect(trusting).toEqual(projectAgentMessagesForModel([...plain, ...withHostFields]));
    plain.forEach((message, index) => expect(trusting[index]).toBe(message));
    withHostFields.forEach((message) => expect(trusting).not.toContain(message));
    [...plain, ...withHostFields].forEach((message) => expect(checking).not.toContain(message));
  });

  it("never hands out its own array: changing a result changes no later one", () => {
    const projection = new TranscriptProjection({ messagesMayChangeInPlace: false });
    const transcript: AgentMessage[] = [userMessage("q", { timestamp: 1 }), ...stepMessages(1)];
    projection.project(transcript).length = 0;
    expect(projection.project(transcript)).toEqual(projectAgentMessagesForModel(transcript));
  });

  it.each([true, false])(
    "finds the call of each result of a response of many calls with a look or two, in order or not (messagesMayChangeInPlace %s)",
    (mayChange) => {
      const calls = 2_000;
      const response = assistantMessage(
        Array.from({ length: calls }, (_, index) => toolCall("read", {}, { id: `c${index}` })),
        { timestamp: 2 },
      );
      let idReads = 0;
      for (const block of response.content) {
        const { id } = block as { id: string };
        // Counts how often the projection reads a call's id: the work of matching results to calls.
        Object.defineProperty(block, "id", {
          get: () => {
            idReads++;
            return id;
          },
          enumerable: true,
        });
      }
      const results = response.content.map((_, index) =>
        toolResultMessage(`c${index}`, "read", "ok", { timestamp: 3 }),
      );
      const inOrder: AgentMessage[] = [userMessage("q", { timestamp: 1 }), response, ...results];
      const projected = new TranscriptProjection({ messagesMayChangeInPlace: mayChange }).project(inOrder);
      expect(projected).toHaveLength(2 + calls);
      expect(idReads).toBeLessThanOrEqual(2 * calls);
      // A result out of order (a host's history) still finds its call, and one without a call is left out.
      const shuffled: AgentMessage[] = [
        ...inOrder.slice(0, 2),
        results[7]!,
        toolResultMessage("no-such-call", "read", "ok", { timestamp: 3 }),
        results[3]!,
      ];
      expect(new TranscriptProjection({ messagesMayChangeInPlace: mayChange }).project(shuffled)).toEqual(
        projectAgentMessagesForModel(shuffled),
      );
    },
  );
});
