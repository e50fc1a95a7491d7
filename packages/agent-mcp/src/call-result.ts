import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { RuntimeToolResult } from "@turnkit/agent-core";
import { ToolResultText } from "@turnkit/agent-loop/internal";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
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
  /** Present when the call was cancelled because the turn was aborted. */
  readonly cancelled?: true;
  /**
   * Why the call failed, when the server or the connection failed it (a
   * JSON-RPC error, a timeout, an exit, ...): the `code` of the
   * {@link McpServerError} whose message is the result's text. Absent for a
   * result the server gave, `isError` or not.
   */
  readonly error?: McpServerErrorCode;
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
 *   with nothing to read says that the tool failed without a message, so the
 *   model is never handed an empty error.
 */
export function toRuntimeToolResult(
  result: CallToolResult,
  ref: { server: string; tool: string },
): RuntimeToolResult<McpToolDetails> {
  const content = (result.content ?? []).flatMap(toModelContent);
  const structured = result.structuredContent;
  if (content.length === 0 && structured !== undefined)
    content.push({ type: "text", text: JSON.stringify(structured) });
  if (content.length === 0 && result.isError === true)
    content.push({
      type: "text",
      text: `MCP server "${ref.server}" reported that tools/call "${ref.tool}" failed, without a message`,
    });
  const details: McpToolDetails = structured === undefined ? { ...ref } : { ...ref, structuredContent: structured };
  return result.isError === true ? { content, details, isError: true } : { content, details };
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

/** A call the server or the connection failed: the error's message for the model, its code in `details.error`. */
export function failedResult(
  ref: { server: string; tool: string },
  error: McpServerError,
): RuntimeToolResult<McpToolDetails> {
  return {
    content: [{ type: "text", text: error.message }],
    details: { ...ref, error: error.code },
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
