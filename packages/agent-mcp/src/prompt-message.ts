import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type { TurnInputMessage } from "@turnkit/agent-core";
import { base64Bytes, modelImage } from "./model-images.js";
import { resourceItemContent } from "./resource-content.js";

/**
 * A prompt the user picked, expanded into the turn's user message
 * (`RunTurnInput.userMessage`): the text of its messages joined by blank
 * lines, its images as the message's images (those of a type models do not
 * take as a line naming them, see `modelImage`). An embedded resource is
 * what `resourceItemContent` makes of it (text headed by its URI, an image
 * as one of the message's images after that line, other binary data a line
 * naming it); audio and resource links become one line each naming them. Every message of the prompt
 * counts, whatever its role: a prompt is the user's request, however its
 * template is written.
 */
export function promptUserMessage(result: GetPromptResult): TurnInputMessage {
  const parts: string[] = [];
  const images: NonNullable<TurnInputMessage["images"]> = [];
  for (const { content } of result.messages) {
    switch (content.type) {
      case "text":
        parts.push(content.text);
        break;
      case "image": {
        const image = modelImage(content.data, content.mimeType);
        if (image.type === "image") images.push(image);
        else parts.push(image.text);
        break;
      }
      case "audio":
        parts.push(`[audio, ${content.mimeType}, ${base64Bytes(content.data)} bytes: not shown]`);
        break;
      case "resource":
        for (const block of resourceItemContent(content.resource)) {
          if (block.type === "image") images.push(block);
          else parts.push(block.text);
        }
        break;
      case "resource_link":
        parts.push(
          `Resource link ${content.uri} (${content.name})${content.description ? `: ${content.description}` : ""}`,
        );
        break;
      default: {
        const unknown: never = content;
        parts.push(`[unsupported MCP content ${JSON.stringify((unknown as { type?: unknown }).type)}]`);
      }
    }
  }
  return images.length > 0 ? { text: parts.join("\n\n"), images } : { text: parts.join("\n\n") };
}
