/**
 * An image the request cannot carry is replaced by a placeholder that names
 * the file it came from: the built-in `read` tool records the path in the
 * image block's documented `fileName`, and the projection uses it.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ToolResultMessage } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { TURN_DEFAULTS, createBuiltinTools, projectAgentMessagesForModel } from "../../src/index.js";
import { response, runScriptedTurn, toolCall, userMessage } from "../../src/testing/index.js";

const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workspaceWithImage(relative: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "turnkit-dropped-image-"));
  workspaces.push(dir);
  await mkdir(path.join(dir, path.dirname(relative)), { recursive: true });
  // A real 3×2 PNG: below the 8 px minimum, so every request drops it.
  await writeFile(path.join(dir, relative), await readFile(new URL("../tools/images/rgb-3x2.png", import.meta.url)));
  return dir;
}

describe("a dropped image names the file it came from", () => {
  it("read's image is too small for the request: the model sees a placeholder naming assets/pixel.png, the history keeps the image", async () => {
    const workspaceDir = await workspaceWithImage("assets/pixel.png");
    const read = createBuiltinTools({ workspaceDir }).find((tool) => tool.def.name === "read")!;
    const turn = await runScriptedTurn({
      script: [response(toolCall("read", { path: "assets/pixel.png" })), "It is a tiny image."],
      input: { tools: [read] },
    });
    expect(turn.outcome.kind).toBe("completed");

    const stored = turn.delivered.find((message): message is ToolResultMessage => message.role === "toolResult");
    expect(stored?.content).toEqual([
      expect.objectContaining({ type: "image", mimeType: "image/png", fileName: "assets/pixel.png" }),
    ]);

    const sent = turn.requests[1]!.context.messages.find(
      (message): message is ToolResultMessage => message.role === "toolResult",
    );
    expect(sent?.content).toEqual([
      { type: "text", text: `[image omitted, smaller than ${TURN_DEFAULTS.minImageDimensionPx} px: assets/pixel.png]` },
    ]);
  });

  it("over the image limit, the older image's placeholder names its file", async () => {
    const webp = (await readFile(new URL("../tools/images/lossy-vp8-9x8.webp", import.meta.url))).toString("base64");
    const image = (fileName: string) => ({ type: "image", data: webp, mimeType: "image/webp", fileName }) as never;
    const asUser = projectAgentMessagesForModel(
      [
        userMessage([image("shots/old.webp")], { timestamp: 1 }),
        userMessage([image("shots/new.webp")], { timestamp: 2 }),
      ],
      { maxImages: 1 },
    );
    expect(asUser[0]).toMatchObject({
      content: [{ type: "text", text: "[image omitted to stay within 1 images per request: shots/old.webp]" }],
    });
    expect(asUser[1]).toMatchObject({ content: [{ type: "image", fileName: "shots/new.webp" }] });
  });

  it("an image replaced for being too small does not count against the per-request limit", async () => {
    const webp = (await readFile(new URL("../tools/images/lossy-vp8-9x8.webp", import.meta.url))).toString("base64");
    const png = (await readFile(new URL("../tools/images/rgb-3x2.png", import.meta.url))).toString("base64");
    const projected = projectAgentMessagesForModel(
      [
        userMessage([{ type: "image", data: webp, mimeType: "image/webp", fileName: "shots/kept.webp" } as never], {
          timestamp: 1,
        }),
        userMessage([{ type: "image", data: png, mimeType: "image/png", fileName: "shots/tiny.png" } as never], {
          timestamp: 2,
        }),
      ],
      { maxImages: 1 },
    );
    expect(projected[0]).toMatchObject({ content: [{ type: "image", fileName: "shots/kept.webp" }] });
    expect(projected[1]).toMatchObject({
      content: [
        { type: "text", text: `[image omitted, smaller than ${TURN_DEFAULTS.minImageDimensionPx} px: shots/tiny.png]` },
      ],
    });
  });
});
