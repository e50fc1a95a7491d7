import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { assertAgentMessage, assertAgentMessages, blockProblem, describeValue, isList } from "./message-checks.js";
import type { AgentMessage } from "./types.js";

/**
 * The messages `Agent.prompt` starts a run with: an array as given, one
 * message as a list of one, and text (with optional images) as one user
 * message stamped now. Throws a `TypeError` naming the field for anything
 * else: input that is none of these, a malformed message, or images that
 * are not a list of image blocks.
 */
export function promptMessages(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): AgentMessage[] {
  if (isList(input)) {
    assertAgentMessages(input, "Agent.prompt", "messages");
    return input;
  }
  if (typeof input !== "string") {
    if (typeof input !== "object" || input === null) {
      throw new TypeError(
        `Agent.prompt: input must be text, a message or an array of messages, got ${describeValue(input)}`,
      );
    }
    assertAgentMessage(input, "Agent.prompt");
    return [input];
  }
  const content: (TextContent | ImageContent)[] = [{ type: "text", text: input }];
  if (images !== undefined) {
    if (!isList(images)) {
      throw new TypeError(`Agent.prompt: images must be an array of image blocks, got ${describeValue(images)}`);
    }
    for (let index = 0; index < images.length; index++) {
      const problem = blockProblem(images[index], ["image"]);
      if (problem) throw new TypeError(`Agent.prompt: images[${index}]${problem}`);
    }
    content.push(...images);
  }
  return [{ role: "user", content, timestamp: Date.now() }];
}
