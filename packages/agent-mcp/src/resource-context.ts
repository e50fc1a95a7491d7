import { type HiddenContextMessage, createHiddenMessage } from "@turnkit/agent-core";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { resourceItemContent } from "./resource-content.js";

/**
 * A resource the host chose to attach to a turn, as a hidden message for
 * `RunTurnInput.beforeUserMessages` (the model reads it as user content
 * before the user's message; it is persisted like any hidden message, with
 * the extension id as `source`):
 *
 * each item as `resourceItemContent` makes it (text headed by its URI, an
 * image as an image when models take its type, other blobs a line naming
 * them), as in tool results and prompts.
 */
export function resourceContextMessage(serverId: string, result: ReadResourceResult): HiddenContextMessage {
  return createHiddenMessage(result.contents.flatMap(resourceItemContent), serverId);
}
