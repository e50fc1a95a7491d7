import type { Message } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import { TranscriptProjection } from "./transcript-projection.js";
import { agentMessageProblem, assertObjectArgument, describeValue, isList } from "@turnkit/agent-loop/internal";

/** Options of {@link projectAgentMessagesForModel}. */
export interface ProjectMessagesOptions {
  /** Most images kept in one request; older ones become a text placeholder. Default 20. */
  maxImages?: number;
  /** Told how many images this projection replaced by a placeholder (too small or past `maxImages`), when there were any. Errors are ignored. */
  onImagesOmitted?: (count: number) => void;
}

/**
 * The turn runner's `convertToLlm`: turns the transcript into the
 * messages a provider accepts.
 *
 * In order: drops host-only messages (`role: "host"`, unknown custom roles),
 * `error`/`aborted` assistant messages, responses a hook dropped, and user
 * and hidden messages that say nothing (text empty or only whitespace, no
 * image: a provider drops such a message or refuses the request); turns
 * hidden messages into user messages; merges adjacent user messages that
 * share a `batchId`; strips host fields; drops tool results that answer no
 * call of the kept assistant message right before them (only tool results
 * between them, one result per call, calls named alike one by one: what
 * providers accept); replaces images
 * no provider takes (bytes that are no PNG, JPEG, GIF or WebP image, sending
 * a kept one as the type its bytes are), images smaller than 8 px, and all
 * but the newest `maxImages` images, with a text placeholder that names the
 * image by its `fileName` (the file it came from, as the built-in `read`
 * tool records it), else its MIME type, so the model knows what it cannot see.
 *
 * Never mutates its input: changed messages are new objects. Throws a
 * `TypeError` naming the argument when `messages` is no array or `options`
 * no object, and naming the message and field when a message is malformed
 * (no object, no string `role`, or pi-ai content of the wrong shape). A runner
 * projecting the same growing transcript for every request uses a
 * {@link TranscriptProjection}, which returns the same and projects each
 * message once.
 */
export function projectAgentMessagesForModel(
  messages: readonly AgentMessage[],
  options: ProjectMessagesOptions = {},
): Message[] {
  if (!isList(messages))
    throw new TypeError(`projectAgentMessagesForModel: messages must be an array, got ${describeValue(messages)}`);
  for (let index = 0; index < messages.length; index++) {
    const problem = agentMessageProblem(messages[index]);
    if (problem) throw new TypeError(`projectAgentMessagesForModel: messages[${index}]${problem}`);
  }
  assertObjectArgument(options, "projectAgentMessagesForModel", "options");
  const { maxImages, onImagesOmitted } = options;
  return new TranscriptProjection({
    maxImages,
    imagesOmittedListener: onImagesOmitted && { imagesOmitted: onImagesOmitted },
  }).project(messages);
}
