import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { Type } from "@sinclair/typebox";
import type { ProtocolImageContent } from "@turnkit/protocol";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool, RuntimeToolResult } from "../runtime-tool.js";
import { clipLine, formatBytes, looksBinary } from "./text-output.js";
import { TURN_DEFAULTS } from "../../defaults.js";
import { detectModelImage } from "./image-type.js";
import { resolveWorkspacePath } from "./workspace-path.js";

const readParameters = Type.Object({
  path: Type.String({ description: "File path, relative to the workspace root (or absolute inside it)" }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "First line to return, 1-based (default 1)" })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Maximum number of lines to return (default and maximum ${TURN_DEFAULTS.readMaxLines})`,
    }),
  ),
});

/** What `read` reports besides the text. */
export interface ReadToolDetails {
  path: string;
  /** For text: the lines returned (1-based, inclusive) and the file's line count. */
  startLine?: number;
  endLine?: number;
  totalLines?: number;
  /** True when lines after `endLine` exist that were not returned. */
  truncated?: boolean;
  /** For images: the MIME type returned (from the content, not the name) and the pixel size. */
  mimeType?: string;
  width?: number;
  height?: number;
}

/** File name extensions that mark a file as meant to be an image, whatever its first bytes look like. */
const IMAGE_EXTENSIONS = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);

/**
 * The built-in `read` tool: returns a text file's lines (from `offset`, at
 * most `limit` lines and {@link TURN_DEFAULTS.readMaxBytes} bytes, with a note saying how
 * to read on when cut), or a PNG/JPEG/GIF/WebP image as image content.
 * Images are recognised by their bytes (`detectModelImage`): a file named
 * `.png`, `.jpg`, `.jpeg`, `.gif` or `.webp`, or any binary file, whose
 * content is one of those formats; the MIME type comes from the content, so
 * a misnamed image still reaches the model with the right one. A file with
 * an image name but other content is an error, as is an image over
 * {@link TURN_DEFAULTS.readMaxImageBytes}. Read-only, so it declares
 * `executionMode: "parallel"`. Refuses paths outside `workspaceDir`,
 * directories and other binary files with a clear error.
 */
export function createReadTool(options: { workspaceDir: string }): RuntimeTool<typeof readParameters, ReadToolDetails> {
  return defineRuntimeTool<typeof readParameters, ReadToolDetails>({
    name: "read",
    label: "Read file",
    description: `Read a file in the workspace. Text files return their lines (at most ${TURN_DEFAULTS.readMaxLines} lines or ${formatBytes(TURN_DEFAULTS.readMaxBytes)} per call; use offset and limit to page through large files). PNG, JPEG, GIF and WebP files return the image.`,
    parameters: readParameters,
    executionMode: "parallel",
    async execute(_ctx, input, signal) {
      const target = await resolveWorkspacePath(options.workspaceDir, input.path);
      const info = await stat(target.absolute).catch((error: NodeJS.ErrnoException) => {
        throw new Error(
          error.code === "ENOENT"
            ? `File not found: ${target.relative}`
            : `Cannot read ${target.relative}: ${error.message}`,
        );
      });
      if (info.isDirectory())
        throw new Error(`${target.relative} is a directory, not a file; use the glob tool to list files`);

      const namedAsImage = IMAGE_EXTENSIONS.has(path.extname(target.absolute).toLowerCase());
      if (namedAsImage && info.size > TURN_DEFAULTS.readMaxImageBytes) throw tooLargeImage(target.relative, info.size);
      // A JPEG's size can sit behind more metadata than the head holds, so a file named as an image is read whole.
      const bytes = namedAsImage ? await readFile(target.absolute, { signal }) : await readHead(target.absolute);
      if (namedAsImage || looksBinary(bytes)) {
        const image = detectModelImage(bytes);
        if (!image) {
          throw new Error(
            namedAsImage
              ? `${target.relative} is not a PNG, JPEG, GIF or WebP image, whatever its name says; read returns text files and those images only`
              : `${target.relative} is a binary file; read returns text files and PNG, JPEG, GIF or WebP images only`,
          );
        }
        if (info.size > TURN_DEFAULTS.readMaxImageBytes) throw tooLargeImage(target.relative, info.size);
        const data = namedAsImage ? bytes : await readFile(target.absolute, { signal });
        // fileName (documented on ProtocolImageContent) names the image where it is replaced by a placeholder or a descriptor.
        const block: ProtocolImageContent = {
          type: "image",
          data: data.toString("base64"),
          mimeType: image.mimeType,
          fileName: target.relative,
        };
        return {
          content: [block],
          details: { path: target.relative, mimeType: image.mimeType, width: image.width, height: image.height },
        };
      }

      return readLines(
        target.absolute,
        target.relative,
        input.offset ?? 1,
        Math.min(input.limit ?? TURN_DEFAULTS.readMaxLines, TURN_DEFAULTS.readMaxLines),
        signal,
      );
    },
  });
}

/** The first 8 KB of a file: enough to tell text from binary and to recognise most image headers. */
async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(8192), 0, 8192, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function tooLargeImage(relative: string, size: number): Error {
  return new Error(
    `${relative} is an image of ${formatBytes(size)}; images larger than ${formatBytes(TURN_DEFAULTS.readMaxImageBytes)} are not returned`,
  );
}

/** Streams the file so a huge file costs one pass, not its size in memory. */
async function readLines(
  file: string,
  relative: string,
  offset: number,
  limit: number,
  signal: AbortSignal,
): Promise<RuntimeToolResult<ReadToolDetails>> {
  const stream = createReadStream(file, { encoding: "utf8", signal });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const picked: string[] = [];
  let total = 0;
  let bytes = 0;
  let cutByBytes = false;
  try {
    for await (const line of lines) {
      total++;
      if (total < offset || picked.length >= limit || cutByBytes) continue;
      const clipped = clipLine(line);
      const size = Buffer.byteLength(clipped, "utf8") + 1;
      if (picked.length > 0 && bytes + size > TURN_DEFAULTS.readMaxBytes) {
        cutByBytes = true;
        continue;
      }
      picked.push(clipped);
      bytes += size;
    }
  } finally {
    lines.close();
    stream.destroy();
  }

  if (total === 0)
    return {
      content: [{ type: "text" as const, text: `(${relative} is empty)` }],
      details: { path: relative, totalLines: 0, truncated: false },
    };
  if (offset > total) throw new Error(`offset ${offset} is past the end of ${relative}, which has ${total} lines`);
  const endLine = offset + picked.length - 1;
  const truncated = endLine < total;
  let text = picked.join("\n");
  if (truncated) {
    const why = cutByBytes ? `the ${formatBytes(TURN_DEFAULTS.readMaxBytes)} limit` : `the ${limit}-line limit`;
    text += `\n\n[Showing lines ${offset}-${endLine} of ${total} (${why}). Use offset=${endLine + 1} to continue.]`;
  }
  return {
    content: [{ type: "text" as const, text }],
    details: { path: relative, startLine: offset, endLine, totalLines: total, truncated },
  };
}
