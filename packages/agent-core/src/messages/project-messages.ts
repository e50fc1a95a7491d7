import type { AssistantMessage, ImageContent, Message, TextContent, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { ProtocolImageContent } from "@turnkit/protocol";
import { MAX_IMAGES_PER_REQUEST } from "../defaults.js";
import { readImageSize } from "./image-size.js";
import { isDroppedResponse } from "./turn-messages.js";

/** Images smaller than this in either dimension are dropped (providers reject them). */
export const MIN_IMAGE_DIMENSION_PX = 8;

/** Options of {@link projectAgentMessagesForModel}. */
export interface ProjectMessagesOptions {
  /** Most images kept in one request; older ones become a text placeholder. Default 20. */
  maxImages?: number;
}

type UserContent = (TextContent | ImageContent)[];

function userContentOf(content: string | UserContent): UserContent {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** The image's `fileName` (see `ProtocolImageContent`), else its MIME type: what a placeholder names. */
function imageLabel(image: ImageContent): string {
  const { fileName } = image as ProtocolImageContent;
  return typeof fileName === "string" && fileName !== "" ? fileName : image.mimeType;
}

function isTooSmall(image: ImageContent): boolean {
  const size = readImageSize(image.data);
  return size !== undefined && (size.width < MIN_IMAGE_DIMENSION_PX || size.height < MIN_IMAGE_DIMENSION_PX);
}

/**
 * The turn runner's `convertToLlm` (SPEC T5): turns the transcript into the
 * messages a provider accepts.
 *
 * In order: drops host-only messages (`role: "host"`, unknown custom roles),
 * `error`/`aborted` assistant messages and responses a hook dropped; turns
 * hidden messages into user messages; merges adjacent user messages that
 * share a `batchId`; strips host fields; drops tool results whose call is not
 * in a kept assistant message; replaces images smaller than 8 px, and all
 * but the newest `maxImages` images, with a text placeholder that names the
 * image by its `fileName` (the file it came from, as the built-in `read`
 * tool records it), else its MIME type, so the model knows what it cannot see.
 *
 * Never mutates its input: changed messages are new objects.
 */
export function projectAgentMessagesForModel(messages: readonly AgentMessage[], options: ProjectMessagesOptions = {}): Message[] {
  const maxImages = options.maxImages ?? MAX_IMAGES_PER_REQUEST;
  const projected: Message[] = [];
  const knownCallIds = new Set<string>();
  let lastBatchId: string | undefined;

  for (const message of messages) {
    switch (message.role) {
      case "user":
      case "hidden": {
        const batchId = message.role === "user" ? (message as { batchId?: string }).batchId : undefined;
        const content = userContentOf(message.content);
        const previous = projected[projected.length - 1];
        if (batchId !== undefined && batchId === lastBatchId && previous?.role === "user") {
          projected[projected.length - 1] = { ...previous, content: [...userContentOf(previous.content), ...content] };
        } else {
          const user: UserMessage = { role: "user", content: typeof message.content === "string" ? message.content : content, timestamp: message.timestamp };
          projected.push(user);
        }
        lastBatchId = batchId;
        continue;
      }
      case "assistant": {
        lastBatchId = undefined;
        if (message.stopReason === "error" || message.stopReason === "aborted" || isDroppedResponse(message)) continue;
        for (const block of message.content) if (block.type === "toolCall") knownCallIds.add(block.id);
        const { role, content, api, provider, model, usage, stopReason, timestamp, responseId, responseModel, diagnostics, errorMessage } = message;
        const clean: AssistantMessage = { role, content, api, provider, model, usage, stopReason, timestamp };
        if (responseId !== undefined) clean.responseId = responseId;
        if (responseModel !== undefined) clean.responseModel = responseModel;
        if (diagnostics !== undefined) clean.diagnostics = diagnostics;
        if (errorMessage !== undefined) clean.errorMessage = errorMessage;
        projected.push(clean);
        continue;
      }
      case "toolResult": {
        lastBatchId = undefined;
        if (!knownCallIds.has(message.toolCallId)) continue;
        const { role, toolCallId, toolName, content, details, isError, timestamp } = message;
        const clean: ToolResultMessage = { role, toolCallId, toolName, content, isError, timestamp };
        if (details !== undefined) clean.details = details;
        projected.push(clean);
        continue;
      }
      default:
        // Host-only and unknown custom messages never reach a model.
        continue;
    }
  }
  return limitImages(projected, maxImages);
}

/** Replaces tiny images, and all but the newest `maxImages`, by placeholders, walking from the end. */
function limitImages(messages: Message[], maxImages: number): Message[] {
  let kept = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === "assistant" || typeof message.content === "string") continue;
    if (!message.content.some((block) => block.type === "image")) continue;
    const content: UserContent = [];
    for (let blockIndex = message.content.length - 1; blockIndex >= 0; blockIndex--) {
      const block = message.content[blockIndex]!;
      if (block.type !== "image") content.push(block);
      else if (isTooSmall(block)) {
        content.push({ type: "text", text: `[image omitted, smaller than ${MIN_IMAGE_DIMENSION_PX} px: ${imageLabel(block)}]` });
      } else if (kept < maxImages) {
        kept++;
        content.push(block);
      } else {
        content.push({ type: "text", text: `[image omitted to stay within ${maxImages} images per request: ${imageLabel(block)}]` });
      }
    }
    content.reverse();
    messages[index] = { ...message, content } as Message;
  }
  return messages;
}
