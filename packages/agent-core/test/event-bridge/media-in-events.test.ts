/**
 * Runtime events go to UIs and logs, so they never carry media bytes: a tool
 * result's image (or video) becomes a small descriptor in `stream.resp`,
 * while the history the host stores keeps the full data.
 */
import { Type } from "@sinclair/typebox";
import type { ToolResultMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import type { StreamChunk } from "@turnkit/protocol";
import { defineRuntimeTool } from "../../src/index.js";
import { EventBridge } from "../../src/internal.js";
import {
  assertRuntimeEventSequence,
  assistantMessage,
  response,
  runScriptedTurn,
  toolCall,
} from "../../src/testing/index.js";

/** `bytes` of base64 data (not a real picture: size is what matters here). */
function base64Of(bytes: number): string {
  return Buffer.alloc(bytes, 7).toString("base64");
}

const IMAGE_BYTES = 2_625_000; // 3.5 MB of base64
const LARGE_BYTES = 9_000_000; // 12 MB of base64

function mediaTool() {
  return defineRuntimeTool({
    name: "capture",
    description: "Returns a screenshot and a full-resolution frame",
    parameters: Type.Object({}),
    execute: async (_ctx, _input, _signal, onUpdate) => {
      const partial = {
        content: [{ type: "image" as const, data: base64Of(IMAGE_BYTES), mimeType: "image/png" }],
        details: undefined,
      };
      onUpdate?.(partial);
      return {
        content: [
          { type: "text", text: "captured" },
          { type: "image", data: base64Of(IMAGE_BYTES), mimeType: "image/png", fileName: "shots/home.png" },
          { type: "image", data: base64Of(LARGE_BYTES), mimeType: "image/webp" },
        ],
      };
    },
  });
}

describe("inline media in runtime events", () => {
  it("tool-call chunks no longer copy a 3.5 MB and a 12 MB image into events; the history keeps the data", async () => {
    const turn = await runScriptedTurn({
      script: [response(toolCall("capture", {})), "Here is your screen."],
      input: { tools: [mediaTool()] },
    });
    expect(turn.outcome.kind).toBe("completed");
    assertRuntimeEventSequence(turn.events);

    // message.persisted is the history itself (the runner's, not the bridge's): it carries the data on purpose.
    const sizes = turn.events
      .filter((event) => event.type !== "message.persisted")
      .map((event) => JSON.stringify(event).length);
    expect(Math.max(...sizes)).toBeLessThan(4_096);

    const finished = turn.events.flatMap((event) =>
      event.type === "stream.resp" &&
      event.payload.chunk.kind === "tool_call" &&
      event.payload.chunk.status === "finished"
        ? [event.payload.chunk]
        : [],
    );
    expect(finished).toHaveLength(1);
    expect(finished[0]!.result!.content).toEqual([
      { type: "text", text: "captured" },
      { type: "media", mediaType: "image", mimeType: "image/png", bytes: IMAGE_BYTES, fileName: "shots/home.png" },
      { type: "media", mediaType: "image", mimeType: "image/webp", bytes: LARGE_BYTES },
    ]);

    const update = turn.events.find(
      (event) => event.type === "debug.trace" && event.payload.message === "tool_execution_update",
    );
    expect(update?.type === "debug.trace" && update.payload.attrs?.partialResult).toMatchObject({
      content: [{ type: "media", mediaType: "image", mimeType: "image/png", bytes: IMAGE_BYTES }],
    });

    const result = turn.delivered.find((message): message is ToolResultMessage => message.role === "toolResult");
    expect(result?.content[1]).toEqual({
      type: "image",
      data: base64Of(IMAGE_BYTES),
      mimeType: "image/png",
      fileName: "shots/home.png",
    });
    expect((result?.content[2] as { data: string }).data).toHaveLength(12_000_000);
  });

  it("a host loop's result with a video block (any block with inline data) is described, never copied", async () => {
    const out: Array<{ type: string; payload: unknown }> = [];
    const bridge = new EventBridge(
      (type, payload) => void out.push({ type, payload }),
      () => "m1",
      () => 0,
    );
    const message = assistantMessage([toolCall("record", {}, { id: "c1" })], { stopReason: "toolUse" });
    await bridge.handle({ type: "message_start", message });
    bridge.handle({ type: "message_end", message });
    bridge.handle({
      type: "tool_execution_end",
      toolCallId: "c1",
      toolName: "record",
      result: {
        content: [{ type: "video", data: base64Of(LARGE_BYTES), mimeType: "video/mp4", fileName: "rec.mp4" }],
        details: { seconds: 30 },
      },
      isError: false,
    });
    const chunk = out
      .map((event) => event.payload as { chunk?: StreamChunk })
      .find((payload) => payload.chunk?.kind === "tool_call")?.chunk;
    expect(chunk).toMatchObject({
      status: "finished",
      result: {
        content: [
          { type: "media", mediaType: "video", mimeType: "video/mp4", bytes: LARGE_BYTES, fileName: "rec.mp4" },
        ],
        details: { seconds: 30 },
      },
    });
    expect(JSON.stringify(out).length).toBeLessThan(2_048);
  });
});
