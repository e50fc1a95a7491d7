import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readImageSize } from "../../src/messages/image-size.js";
import { createReadTool } from "../../src/tools/builtin/read-tool.js";
import { makeSandbox, run } from "./fixtures.js";

/** Real files written by ImageMagick and cwebp, one per format and encoding the read tool accepts. */
const IMAGES = [
  { file: "rgb-3x2.png", mimeType: "image/png", width: 3, height: 2 },
  { file: "baseline-5x4.jpg", mimeType: "image/jpeg", width: 5, height: 4 },
  { file: "progressive-5x4.jpg", mimeType: "image/jpeg", width: 5, height: 4 },
  // A 9,000-byte comment segment puts the frame header past the first 8 KB.
  { file: "comment-9kb-5x4.jpg", mimeType: "image/jpeg", width: 5, height: 4 },
  { file: "green-7x6.gif", mimeType: "image/gif", width: 7, height: 6 },
  { file: "lossy-vp8-9x8.webp", mimeType: "image/webp", width: 9, height: 8 },
  { file: "lossless-vp8l-9x8.webp", mimeType: "image/webp", width: 9, height: 8 },
  { file: "alpha-vp8x-9x8.webp", mimeType: "image/webp", width: 9, height: 8 },
] as const;

const bytesOf = (file: string) => readFile(new URL(`./images/${file}`, import.meta.url));

let sandbox: Awaited<ReturnType<typeof makeSandbox>>;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("readImageSize", () => {
  it.each(IMAGES)("reads the size of $file", async ({ file, width, height }) => {
    expect(readImageSize((await bytesOf(file)).toString("base64"))).toEqual({ width, height });
  });

  it("returns undefined for text, a cut header or bad base64, and never throws", async () => {
    expect(readImageSize(Buffer.from("just text").toString("base64"))).toBeUndefined();
    expect(readImageSize((await bytesOf("rgb-3x2.png")).subarray(0, 20).toString("base64"))).toBeUndefined();
    expect(readImageSize("%%% not base64 %%%")).toBeUndefined();
    expect(readImageSize("")).toBeUndefined();
  });
});

describe("read on images", () => {
  it.each(IMAGES)(
    "returns $file as an image with its MIME type and size",
    async ({ file, mimeType, width, height }) => {
      const bytes = await bytesOf(file);
      await writeFile(path.join(sandbox.workspace, file), bytes);
      const result = await run(createReadTool({ workspaceDir: sandbox.workspace }), { path: file });
      expect(result.content).toEqual([{ type: "image", data: bytes.toString("base64"), mimeType, fileName: file }]);
      expect(result.details).toEqual({ path: file, mimeType, width, height });
    },
  );

  it("takes the MIME type from the content: a JPEG named .png, a PNG without an extension", async () => {
    const jpeg = await bytesOf("baseline-5x4.jpg");
    const png = await bytesOf("rgb-3x2.png");
    await writeFile(path.join(sandbox.workspace, "photo.png"), jpeg);
    await writeFile(path.join(sandbox.workspace, "screenshot"), png);
    const read = createReadTool({ workspaceDir: sandbox.workspace });
    expect((await run(read, { path: "photo.png" })).content).toEqual([
      { type: "image", data: jpeg.toString("base64"), mimeType: "image/jpeg", fileName: "photo.png" },
    ]);
    expect((await run(read, { path: "screenshot" })).content).toEqual([
      { type: "image", data: png.toString("base64"), mimeType: "image/png", fileName: "screenshot" },
    ]);
  });

  it("refuses a file named as an image that is not one, and other image formats", async () => {
    await writeFile(path.join(sandbox.workspace, "fake.png"), "not an image\n");
    // A 2×1 BMP: an image format providers do not take.
    const bmp = Buffer.alloc(62);
    bmp.write("BM", 0, "latin1");
    bmp.writeUInt32LE(62, 2);
    bmp.writeUInt32LE(54, 10);
    bmp.writeUInt32LE(40, 14);
    bmp.writeInt32LE(2, 18);
    bmp.writeInt32LE(1, 22);
    bmp.writeUInt16LE(1, 26);
    bmp.writeUInt16LE(24, 28);
    await writeFile(path.join(sandbox.workspace, "icon.bmp"), bmp);
    const read = createReadTool({ workspaceDir: sandbox.workspace });
    await expect(run(read, { path: "fake.png" })).rejects.toThrow(
      "fake.png is not a PNG, JPEG, GIF or WebP image, whatever its name says",
    );
    await expect(run(read, { path: "icon.bmp" })).rejects.toThrow(
      "icon.bmp is a binary file; read returns text files and PNG, JPEG, GIF or WebP images only",
    );
  });
});
