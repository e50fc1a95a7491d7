import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { RuntimeToolResult } from "@turnkit/agent-core";
import { ToolResultText } from "@turnkit/agent-loop/internal";
import { type CallToolResult, McpError, type Progress } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import { base64Bytes, modelImage } from "./model-images.js";
import { resourceItemContent } from "./resource-content.js";

/** The `details` of an MCP tool result: for logs and UIs, never sent to the model. */
export interface McpToolDetails {
  /** The extension id, which names the server. */
  readonly server: string;
  /** The server's name of the tool that ran. */
  readonly tool: string;
  /** The server's `structuredContent`, as it sent it. */
  readonly structuredContent?: Record<string, unknown>;
  /** The latest progress notification (in updates while the tool runs). */
  readonly progress?: Progress;
  /**
   * Present when the result's text was longer than `maxResultChars`: how
   * many characters of text it had, and how many the model was shown.
   */
  readonly truncated?: { readonly chars: number; readonly shownChars: number };
  /** Present when the call was cancelled because the turn was aborted. */
  readonly cancelled?: true;
  /**
   * Why the call failed, when the server or the connection failed it (a
   * JSON-RPC error, a timeout, an exit, ...): the `code` of the
   * {@link McpServerError} whose message is the result's text. Absent for a
   * result the server gave, `isError` or not.
   */
  readonly error?: McpServerErrorCode;
  /**
   * The JSON-RPC error the server answered the call with (`error` is then
   * `server_error`): its code, its message as the server sent it, and its
   * `data` when it sent any (a retry delay, the field it refused), for the
   * host; the model reads the message only.
   */
  readonly jsonRpcError?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

type Block = CallToolResult["content"][number];

/**
 * Turns an MCP `tools/call` result into the tool result the model sees.
 *
 * - text stays text; PNG, JPEG, GIF and WebP images stay images (base64
 *   unchanged), other images become a line naming their type and size
 *   (see `modelImage`);
 * - an embedded resource as `resourceItemContent` makes it: text headed by
 *   its URI, an image of a type models take as that line and the image,
 *   other binary data a line naming its URI, type and size;
 * - a resource link becomes a line with its URI, name and description;
 * - audio becomes a line naming its type and size (models take no audio here);
 * - `structuredContent` goes to `details.structuredContent`; when the server
 *   sent no content blocks, its JSON is also the text the model reads;
 * - `isError: true` makes an error result whose text is the server's; one
 *   with nothing to read (no content, or only empty or blank text) says that
 *   the tool failed without a message, so the model is never handed an
 *   empty error;
 * - text beyond `maxChars` in all is cut (see `cutText`).
 */
export function toRuntimeToolResult(
  result: CallToolResult,
  ref: { server: string; tool: string },
  maxChars: number,
): RuntimeToolResult<McpToolDetails> {
  const mapped = (result.content ?? []).flatMap(toModelContent);
  const structured = result.structuredContent;
  if (mapped.length === 0 && structured !== undefined) mapped.push({ type: "text", text: JSON.stringify(structured) });
  if (result.isError === true && !mapped.some(isReadable))
    mapped.splice(0, mapped.length, {
      type: "text",
      text: `MCP server "${ref.server}" reported that tools/call "${ref.tool}" failed, without a message`,
    });
  const { content, truncated } = cutText(mapped, maxChars, ref);
  const details: McpToolDetails = {
    ...ref,
    ...(structured !== undefined && { structuredContent: structured }),
    ...(truncated && { truncated }),
  };
  return result.isError === true ? { content, details, isError: true } : { content, details };
}

/**
 * The blocks with at most `maxChars` characters of text in all, in order:
 * the block where the limit falls is cut there (never between the two
 * halves of a character outside the BMP, which a provider would refuse),
 * text blocks after it are left out, images are kept; and then one line
 * saying how much text there was and how much is shown.
 */
function cutText(
  blocks: (TextContent | ImageContent)[],
  maxChars: number,
  ref: { server: string; tool: string },
): { content: (TextContent | ImageContent)[]; truncated?: { chars: number; shownChars: number } } {
  const chars = blocks.reduce((sum, block) => sum + (block.type === "text" ? block.text.length : 0), 0);
  if (chars <= maxChars) return { content: blocks };
  const content: (TextContent | ImageContent)[] = [];
  let shownChars = 0;
  let full = false;
  for (const block of blocks) {
    if (block.type !== "text") content.push(block);
    else if (!full) {
      let end = Math.min(block.text.length, maxChars - shownChars);
      if (end < block.text.length && isHighSurrogate(block.text.charCodeAt(end - 1))) end--;
      if (end > 0) content.push({ type: "text", text: block.text.slice(0, end) });
      shownChars += end;
      full = end < block.text.length;
    }
  }
  content.push({
    type: "text",
    text: `[MCP server "${ref.server}" answered tools/call "${ref.tool}" with ${chars} characters of text; only the first ${shownChars} are shown (maxResultChars)]`,
  });
  return { content, truncated: { chars, shownChars } };
}

/** An image, or text that is not blank: something the model can read. */
function isReadable(block: TextContent | ImageContent): boolean {
  return block.type === "image" || block.text.trim() !== "";
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * A call the turn aborted, with the loop's text for it: `interrupted` when
 * the call had been sent (the server may have had effects; it got
 * `notifications/cancelled`), `aborted` ("not executed") only when it never
 * reached the server. A model that reads "not executed" may make a call
 * again whose effects already happened.
 */
export function abortedResult(ref: { server: string; tool: string }, sent: boolean): RuntimeToolResult<McpToolDetails> {
  return {
    content: [{ type: "text", text: sent ? ToolResultText.interrupted : ToolResultText.aborted }],
    details: { ...ref, cancelled: true },
    isError: true,
  };
}

/**
 * A call the server or the connection failed: the error's message for the
 * model, its code in `details.error`, and the server's JSON-RPC error, when
 * it answered with one, in `details.jsonRpcError`.
 */
export function failedResult(
  ref: { server: string; tool: string },
  error: McpServerError,
): RuntimeToolResult<McpToolDetails> {
  const answered = error.code === "server_error" && error.cause instanceof McpError ? error.cause : undefined;
  const jsonRpcError = answered && {
    code: answered.code,
    message: answered.message.replace(/^MCP error -?\d+: /, ""),
    ...(answered.data !== undefined && { data: answered.data }),
  };
  return {
    content: [{ type: "text", text: error.message }],
    details: { ...ref, error: error.code, ...(jsonRpcError && { jsonRpcError }) },
    isError: true,
  };
}

/** The text of a progress notification, as a tool update shows it. */
export function progressText(progress: Progress): string {
  const amount = progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
  return progress.message ? `${progress.message} (${amount})` : `progress ${amount}`;
}

function toModelContent(block: Block): (TextContent | ImageContent)[] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "image":
      return [modelImage(block.data, block.mimeType)];
    case "audio":
      return [{ type: "text", text: `[audio, ${block.mimeType}, ${base64Bytes(block.data)} bytes: not shown]` }];
    case "resource":
      return resourceItemContent(block.resource);
    case "resource_link": {
      const description = block.description ? `: ${block.description}` : "";
      return [{ type: "text", text: `Resource link ${block.uri} (${block.name})${description}` }];
    }
    default: {
      const unknown: never = block;
      return [
        {
          type: "text",
          text: `[unsupported MCP content ${JSON.stringify((unknown as { type?: unknown }).type)}]`,
        },
      ];
    }
  }
}
