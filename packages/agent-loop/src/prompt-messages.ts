import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { AgentMessage } from "./types.js";

/**
 * The messages `Agent.prompt` starts a run with: an array as given, one
 * message as a list of one, and text (with optional images) as one user
 * message stamped now.
 */
export function promptMessages(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): AgentMessage[] {
  if (Array.isArray(input)) return input;
  if (typeof input !== "string") return [input];
  const content: (TextContent | ImageContent)[] = [{ type: "text", text: input }];
  if (images && images.length > 0) content.push(...images);
  return [{ role: "user", content, timestamp: Date.now() }];
}
