import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { FIXTURE_PNG_BASE64 } from "./fixtures/fixture-server.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString("base64");
/** The first bytes of a JPEG, a GIF and a WebP file: what tells their type. */
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]).toString("base64");
const GIF = Buffer.from("GIF89a\x01\x00\x01\x00", "latin1").toString("base64");
const WEBP = Buffer.from("RIFF\x1a\x00\x00\x00WEBPVP8L", "latin1").toString("base64");

describe("images of types models do not take", () => {
  it("a tool's SVG or BMP image becomes a line naming it; PNG, JPEG (also as image/jpg or in capitals), GIF and WebP stay images", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [{ name: "chart", inputSchema: { type: "object" } }],
      call: () => ({
        content: [
          { type: "image", data: SVG, mimeType: "image/svg+xml" },
          { type: "image", data: "Qk0=", mimeType: "image/bmp" },
          { type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/png" },
          { type: "image", data: JPEG, mimeType: "image/jpg" },
          { type: "image", data: WEBP, mimeType: "IMAGE/WEBP" },
          { type: "image", data: GIF, mimeType: "image/gif; charset=binary" },
        ],
      }),
    });
    const mcp = createMcpExtension({ id: "charts", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("chart", {})]), "Done."] });

    expect(turn.toolResults[0]!.content).toEqual([
      {
        type: "text",
        text: "[image, image/svg+xml, 41 bytes: not shown (models take PNG, JPEG, GIF and WebP images)]",
      },
      { type: "text", text: "[image, image/bmp, 2 bytes: not shown (models take PNG, JPEG, GIF and WebP images)]" },
      { type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/png" },
      { type: "image", data: JPEG, mimeType: "image/jpeg" },
      { type: "image", data: WEBP, mimeType: "image/webp" },
      { type: "image", data: GIF, mimeType: "image/gif" },
    ]);
    // What the model was sent next: the same blocks, no SVG.
    const sent = JSON.stringify(turn.model.requests[1]!.context.messages);
    expect(sent).not.toContain('image/svg+xml"');
    await runtime.dispose();
  });

  it("an image whose bytes are no image of a type models take (empty, text) becomes a line; one of another such type than it says is sent as the type its bytes are", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {}, resources: {} },
      tools: [{ name: "chart", inputSchema: { type: "object" } }],
      call: () => ({
        content: [
          { type: "image", data: "", mimeType: "image/png" },
          { type: "image", data: Buffer.from("not an image").toString("base64"), mimeType: "image/jpeg" },
          { type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/webp" },
          { type: "image", data: JPEG, mimeType: "image/png" },
          { type: "resource", resource: { uri: "mem://empty.png", mimeType: "image/png", blob: "" } },
        ],
      }),
      contents: (uri) => [{ uri, mimeType: "image/gif", blob: JPEG }],
    });
    const mcp = createMcpExtension({ id: "charts", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("chart", {})]), "Done."] });

    const notImage = "bytes: not shown (the bytes are not a PNG, JPEG, GIF or WebP image)";
    expect(turn.toolResults[0]!.content).toEqual([
      { type: "text", text: `[image, image/png, 0 ${notImage}]` },
      { type: "text", text: `[image, image/jpeg, 12 ${notImage}]` },
      { type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/png" },
      { type: "image", data: JPEG, mimeType: "image/jpeg" },
      { type: "text", text: `[resource mem://empty.png, image/png, 0 ${notImage}]` },
    ]);
    expect((await mcp.resourceAsContext("mem://x.gif")).content).toEqual([
      { type: "text", text: "Resource mem://x.gif, image/gif:" },
      { type: "image", data: JPEG, mimeType: "image/jpeg" },
    ]);
    await runtime.dispose();
  });

  it("a resource attached as context and a prompt's image follow the same rule", async () => {
    const server = await startUnusualServer({
      capabilities: { resources: {}, prompts: {} },
      contents: (uri) => [{ uri, mimeType: "image/svg+xml", blob: SVG }],
      promptMessages: [
        { role: "user", content: { type: "text", text: "Describe the chart." } },
        { role: "user", content: { type: "image", data: SVG, mimeType: "image/svg+xml" } },
      ],
    });
    const mcp = createMcpExtension({ id: "charts", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const context = await mcp.resourceAsContext("mem://chart.svg");
    const prompt = await mcp.expandPrompt("hello");

    expect(context.content).toEqual([
      {
        type: "text",
        text: "[resource mem://chart.svg, image/svg+xml, 41 bytes: not shown (models take PNG, JPEG, GIF and WebP images)]",
      },
    ]);
    expect(prompt).toEqual({
      text: "Describe the chart.\n\n[image, image/svg+xml, 41 bytes: not shown (models take PNG, JPEG, GIF and WebP images)]",
    });
    await runtime.dispose();
  });

  it("an image embedded as a resource is an image wherever it comes from: a tool's result, a prompt, a resource attached as context", async () => {
    const png = { uri: "screen://1", mimeType: "image/png", blob: FIXTURE_PNG_BASE64 };
    const svg = { uri: "screen://2", mimeType: "image/svg+xml", blob: SVG };
    const server = await startUnusualServer({
      capabilities: { tools: {}, resources: {}, prompts: {} },
      tools: [{ name: "screenshot", inputSchema: { type: "object" } }],
      call: () => ({
        content: [
          { type: "resource", resource: png },
          { type: "resource", resource: svg },
        ],
      }),
      contents: () => [png],
      promptMessages: [
        { role: "user", content: { type: "text", text: "What is on the screen?" } },
        { role: "user", content: { type: "resource", resource: png } },
      ],
    });
    const mcp = createMcpExtension({ id: "screens", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("screenshot", {})]), "Done."] });
    const context = await mcp.resourceAsContext("screen://1");
    const prompt = await mcp.expandPrompt("hello");

    const shown = [
      { type: "text", text: "Resource screen://1, image/png:" },
      { type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/png" },
    ];
    expect(turn.toolResults[0]!.content).toEqual([
      ...shown,
      {
        type: "text",
        text: "[resource screen://2, image/svg+xml, 41 bytes: not shown (models take PNG, JPEG, GIF and WebP images)]",
      },
    ]);
    expect(context.content).toEqual(shown);
    expect(prompt).toEqual({
      text: "What is on the screen?\n\nResource screen://1, image/png:",
      images: [{ type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/png" }],
    });
    await runtime.dispose();
  });
});
