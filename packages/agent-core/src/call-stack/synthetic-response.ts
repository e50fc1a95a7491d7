import {
  type AssistantMessage,
  type AssistantMessageEventStream,
  type Model,
  createAssistantMessageEventStream,
} from "@mariozechner/pi-ai";
import { emptyUsage } from "@turnkit/agent-loop/internal";

/**
 * A complete response that never touched a provider: `start`, one
 * text block (`text_start`, `text_delta`, `text_end`) when `text` is not
 * empty, then `done` with stopReason `stop` and zero usage. `decorate` may
 * add host fields to the final message (e.g. a dropped-response marker).
 */
export function syntheticResponse(
  model: Model<any>,
  text: string,
  decorate?: (message: AssistantMessage) => void,
): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  const message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
  decorate?.(message);
  queueMicrotask(() => {
    stream.push({ type: "start", partial: message });
    if (text !== "") {
      const block = { type: "text" as const, text: "" };
      message.content.push(block);
      stream.push({ type: "text_start", contentIndex: 0, partial: message });
      block.text = text;
      stream.push({ type: "text_delta", contentIndex: 0, delta: text, partial: message });
      stream.push({ type: "text_end", contentIndex: 0, content: text, partial: message });
    }
    stream.push({ type: "done", reason: "stop", message });
  });
  return stream;
}
