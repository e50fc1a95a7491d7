import { describe, expect, it } from "vitest";
import type { ImageContent, Message, TextContent, UserMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { ProtocolImageContent } from "@turnkit/protocol";
import { assistantMessage, text, toolCall, toolResultMessage, userMessage } from "@turnkit/agent-loop/testing";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import { projectAgentMessagesForModel } from "../../src/messages/project-messages.js";
import { TranscriptProjection } from "../../src/messages/transcript-projection.js";
import { markDroppedResponse } from "../../src/messages/turn-messages.js";

/** The first 33 bytes of a PNG (signature and IHDR): enough for its size to be read. */
function pngHeader(width: number, height: number): string {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "latin1");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes.writeUInt8(8, 24); // bit depth
  bytes.writeUInt8(6, 25); // colour type RGBA
  return bytes.toString("base64");
}

function image(width: number, height: number, name?: string): ImageContent {
  const block = { type: "image", data: pngHeader(width, height), mimeType: "image/png" } as ImageContent;
  if (name) (block as ProtocolImageContent).fileName = name;
  return block;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const field of Object.values(value as object)) deepFreeze(field);
  }
  return value;
}

const roles = (messages: { role: string }[]) => messages.map((message) => message.role);

describe("projectAgentMessagesForModel", () => {
  it("drops host-only and unknown custom messages", () => {
    const projected = projectAgentMessagesForModel([
      userMessage("hi", { timestamp: 1 }),
      { role: "host", kind: "note", data: { x: 1 }, timestamp: 2 },
      { role: "some-extension-thing", text: "?", timestamp: 3 } as unknown as AgentMessage,
      assistantMessage("hello", { timestamp: 4 }),
    ]);
    expect(roles(projected)).toEqual(["user", "assistant"]);
  });

  it("drops error and aborted assistant messages and responses a hook dropped", () => {
    const dropped = assistantMessage("rejected draft", { timestamp: 4 });
    markDroppedResponse(dropped, "retry");
    const projected = projectAgentMessagesForModel([
      userMessage("q", { timestamp: 1 }),
      assistantMessage("partial", { stopReason: "error", errorMessage: "500", timestamp: 2 }),
      assistantMessage("cut", { stopReason: "aborted", timestamp: 3 }),
      dropped,
      assistantMessage("kept", { timestamp: 5 }),
    ]);
    expect(roles(projected)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(projected)).not.toMatch(/partial|cut|rejected draft/);
  });

  it("turns hidden messages into user messages (string and block content)", () => {
    const projected = projectAgentMessagesForModel([
      { role: "hidden", content: "<reminder>one</reminder>", timestamp: 1, source: "ext" },
      { role: "hidden", content: [{ type: "text", text: "two" }], timestamp: 2 },
    ]);
    expect(projected).toEqual([
      { role: "user", content: "<reminder>one</reminder>", timestamp: 1 },
      { role: "user", content: [{ type: "text", text: "two" }], timestamp: 2 },
    ]);
  });

  it("merges adjacent user messages of one batch into one; other batches and interrupted batches stay apart; host fields are stripped", () => {
    const projected = projectAgentMessagesForModel([
      { ...userMessage("a1", { timestamp: 1 }), batchId: "a", messageId: "m1" } as AgentMessage,
      { ...userMessage([text("a2")], { timestamp: 2 }), batchId: "a" } as AgentMessage,
      { ...userMessage("b1", { timestamp: 3 }), batchId: "b" } as AgentMessage,
      assistantMessage("reply", { timestamp: 4 }),
      { ...userMessage("b2", { timestamp: 5 }), batchId: "b" } as AgentMessage,
    ]);
    expect(roles(projected)).toEqual(["user", "user", "assistant", "user"]);
    expect(projected[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "a1" },
        { type: "text", text: "a2" },
      ],
      timestamp: 1,
    });
    for (const message of projected) {
      expect(message).not.toHaveProperty("batchId");
      expect(message).not.toHaveProperty("messageId");
    }
  });

  it("leaves out user and hidden messages that say nothing (no text but whitespace, no image); a batch goes on across one", () => {
    const call = assistantMessage([toolCall("read", {}, { id: "c1" })], { timestamp: 2 });
    const history: AgentMessage[] = [
      userMessage("question", { timestamp: 1 }),
      call,
      // A host's empty note between a call and its result: without it, the result follows its call, as providers ask.
      userMessage("", { timestamp: 3 }),
      toolResultMessage("c1", "read", "contents", { timestamp: 4 }),
      { role: "hidden", content: " \n", timestamp: 5 },
      { role: "hidden", content: [{ type: "text", text: "\t" }], timestamp: 6 },
      { ...userMessage("b1", { timestamp: 7 }), batchId: "b" } as AgentMessage,
      { ...userMessage([text("  ")], { timestamp: 8 }), batchId: "b" } as AgentMessage,
      { ...userMessage("b2", { timestamp: 9 }), batchId: "b" } as AgentMessage,
      { ...userMessage([text(" "), image(64, 64)], { timestamp: 10 }) },
    ];
    const projected = projectAgentMessagesForModel(history);
    expect(roles(projected)).toEqual(["user", "assistant", "toolResult", "user", "user"]);
    expect(projected[3]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "b1" },
        { type: "text", text: "b2" },
      ],
      timestamp: 7,
    });
    // An image says something, whatever its text.
    expect((projected[4] as UserMessage).content).toHaveLength(2);
    // The same through a projection that sees the transcript grow one message at a time.
    const growing = new TranscriptProjection();
    let last: Message[] = [];
    for (let length = 1; length <= history.length; length++) last = growing.project(history.slice(0, length));
    expect(last).toEqual(projected);
  });

  it("strips host fields from assistant and tool-result messages", () => {
    const assistant = {
      ...assistantMessage([toolCall("a", {}, { id: "c1" })], { timestamp: 2 }),
      hostNote: "ui-only",
    } as AgentMessage;
    const result = { ...toolResultMessage("c1", "a", "ok", { timestamp: 3 }), hostNote: "ui-only" } as AgentMessage;
    const projected = projectAgentMessagesForModel([userMessage("q", { timestamp: 1 }), assistant, result]);
    expect(JSON.stringify(projected)).not.toContain("hostNote");
  });

  it("drops tool results whose call is not in a kept assistant message", () => {
    const projected = projectAgentMessagesForModel([
      userMessage("q", { timestamp: 1 }),
      assistantMessage([toolCall("a", {}, { id: "lost" })], { stopReason: "error", errorMessage: "x", timestamp: 2 }),
      toolResultMessage("lost", "a", "orphan", { timestamp: 3 }),
      toolResultMessage("never-called", "a", "orphan too", { timestamp: 4 }),
      assistantMessage([toolCall("a", {}, { id: "kept" })], { timestamp: 5 }),
      toolResultMessage("kept", "a", "answer", { timestamp: 6 }),
    ]);
    expect(roles(projected)).toEqual(["user", "assistant", "toolResult"]);
    expect(JSON.stringify(projected)).not.toContain("orphan");
  });

  it("drops tool results no provider takes: one after a user message, one more than a call's, one for an earlier response's call", () => {
    const history: AgentMessage[] = [
      userMessage("q", { timestamp: 1 }),
      assistantMessage([toolCall("a", {}, { id: "c1" }), toolCall("a", {}, { id: "c2" })], { timestamp: 2 }),
      toolResultMessage("c2", "a", "c2 answer", { timestamp: 3 }),
      toolResultMessage("c1", "a", "c1 answer", { timestamp: 4 }),
      toolResultMessage("c2", "a", "c2 again", { timestamp: 5 }),
      assistantMessage([toolCall("a", {}, { id: "c3" })], { timestamp: 6 }),
      toolResultMessage("c1", "a", "c1 late", { timestamp: 7 }),
      toolResultMessage("c3", "a", "c3 answer", { timestamp: 8 }),
      // Two calls named alike (some servers name every call call_0): a result for each, as pi sends them, not a third.
      assistantMessage([toolCall("a", {}, { id: "same" }), toolCall("b", {}, { id: "same" })], { timestamp: 8 }),
      toolResultMessage("same", "a", "same first", { timestamp: 8 }),
      toolResultMessage("same", "b", "same second", { timestamp: 8 }),
      toolResultMessage("same", "a", "same third", { timestamp: 8 }),
      assistantMessage([toolCall("a", {}, { id: "c4" })], { timestamp: 9 }),
      userMessage("interrupting", { timestamp: 10 }),
      toolResultMessage("c4", "a", "c4 after the user", { timestamp: 11 }),
    ];
    const expected = [
      "user",
      "assistant",
      "toolResult:c2 answer",
      "toolResult:c1 answer",
      "assistant",
      "toolResult:c3 answer",
      "assistant",
      "toolResult:same first",
      "toolResult:same second",
      "assistant",
      "user",
    ];
    const shown = (messages: readonly Message[]) =>
      messages.map((message) =>
        message.role === "toolResult" ? `toolResult:${(message.content[0] as { text: string }).text}` : message.role,
      );
    expect(shown(projectAgentMessagesForModel(history))).toEqual(expected);
    // The same for a projection that grows with the transcript, whichever way it was built.
    for (const messagesMayChangeInPlace of [true, false]) {
      const projection = new TranscriptProjection({ messagesMayChangeInPlace });
      for (let length = 1; length <= history.length; length++) projection.project(history.slice(0, length));
      expect(shown(projection.project(history))).toEqual(expected);
    }
  });

  it(`drops images smaller than ${TURN_DEFAULTS.minImageDimensionPx} px in either dimension, leaving a placeholder that names the file`, () => {
    const projected = projectAgentMessagesForModel([
      userMessage([text("look"), image(1, 1, "pixel.gif"), image(64, 4), image(8, 8), image(640, 480)], {
        timestamp: 1,
      }),
    ]);
    const content = (projected[0] as UserMessage).content as { type: string; data?: string; text?: string }[];
    expect(content.map((block) => block.type)).toEqual(["text", "text", "text", "image", "image"]);
    expect(content[1]!.text).toBe(`[image omitted, smaller than ${TURN_DEFAULTS.minImageDimensionPx} px: pixel.gif]`);
    expect(content[2]!.text).toBe(`[image omitted, smaller than ${TURN_DEFAULTS.minImageDimensionPx} px: image/png]`);
    expect(content.filter((block) => block.type === "image").map((block) => block.data)).toEqual([
      pngHeader(8, 8),
      pngHeader(640, 480),
    ]);
  });

  it("an image no provider takes (empty data, bytes that are no PNG, JPEG, GIF or WebP) becomes a placeholder; a kept one is sent as the type its bytes are", () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]).toString("base64");
    const block = (data: string, mimeType: string, fileName?: string) =>
      ({ type: "image", data, mimeType, ...(fileName && { fileName }) }) as ImageContent;
    const history: AgentMessage[] = [
      userMessage([text("look"), block("", "image/png", "empty.png"), block(pngHeader(64, 64), "")], { timestamp: 1 }),
      assistantMessage([toolCall("shot", {}, { id: "c1" })], { timestamp: 2 }),
      toolResultMessage(
        "c1",
        "shot",
        [block(Buffer.from("hello").toString("base64"), "image/png"), block(jpeg, "image/png")],
        {
          timestamp: 3,
        },
      ),
    ];
    const frozen = JSON.stringify(history);
    const projected = projectAgentMessagesForModel(history);
    const shown = (message: Message | undefined) =>
      ((message?.content ?? []) as (TextContent | ImageContent)[]).map((part) =>
        part.type === "text" ? part.text : `image ${part.mimeType}`,
      );
    expect(shown(projected[0])).toEqual([
      "look",
      "[image omitted, not a PNG, JPEG, GIF or WebP image: empty.png]",
      "image image/png",
    ]);
    expect(shown(projected[2])).toEqual([
      "[image omitted, not a PNG, JPEG, GIF or WebP image: image/png]",
      "image image/jpeg",
    ]);
    expect(JSON.stringify(history)).toBe(frozen);
  });

  it(`keeps the newest ${TURN_DEFAULTS.maxImagesPerRequest} images; older ones become a text placeholder naming the file`, () => {
    const messages: AgentMessage[] = [];
    for (let index = 0; index < 23; index++) {
      messages.push(
        userMessage([text(`shot ${index}`), image(100, 100, `screenshot-${index}.png`)], { timestamp: index * 2 }),
      );
      messages.push(assistantMessage(`seen ${index}`, { timestamp: index * 2 + 1 }));
    }
    const projected = projectAgentMessagesForModel(messages);
    const blocks = projected
      .filter((message) => message.role === "user")
      .map((message) => ((message as UserMessage).content as { type: string; text?: string }[])[1]!);
    expect(blocks.filter((block) => block.type === "image")).toHaveLength(TURN_DEFAULTS.maxImagesPerRequest);
    expect(blocks.slice(0, 3)).toEqual(
      [0, 1, 2].map((index) => ({ type: "text", text: expect.stringContaining(`screenshot-${index}.png`) })),
    );
    expect(blocks.slice(3).every((block) => block.type === "image")).toBe(true);
    // maxImages is an option too.
    const two = projectAgentMessagesForModel(messages, { maxImages: 2 });
    expect(JSON.stringify(two).match(/"type":"image"/g)).toHaveLength(2);
  });

  it("never mutates its input (deep-frozen input projects without throwing, to new objects where changed)", () => {
    const dropped = assistantMessage("draft", { timestamp: 9 });
    markDroppedResponse(dropped, "retry");
    const input = deepFreeze<AgentMessage[]>([
      { ...userMessage("a1", { timestamp: 1 }), batchId: "a" } as AgentMessage,
      { ...userMessage([text("a2"), image(2, 2), image(50, 50)], { timestamp: 2 }), batchId: "a" } as AgentMessage,
      { role: "hidden", content: "hidden", timestamp: 3 },
      { role: "host", kind: "note", timestamp: 4 },
      assistantMessage([toolCall("a", {}, { id: "c1" })], { timestamp: 5 }),
      toolResultMessage("c1", "a", [text("result"), image(50, 50)], { timestamp: 6 }),
      toolResultMessage("zz", "a", "orphan", { timestamp: 7 }),
      dropped,
      ...Array.from({ length: 21 }, (_, index) => userMessage([image(20, 20, `i${index}`)], { timestamp: 10 + index })),
    ]);
    const snapshot = JSON.stringify(input);
    const projected = projectAgentMessagesForModel(input);
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(projected.length).toBeGreaterThan(0);
  });
});
