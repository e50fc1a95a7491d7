import { createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import { assistantMessage } from "@turnkit/agent-loop/testing";
import type { StreamFn, StreamFnOptions } from "../../src/call-stack/stream-fn.js";

/** A provider the test drives by hand: each `push` sends one event and lets the layer read it. */
export function manualProvider() {
  const stream = createAssistantMessageEventStream();
  const message = assistantMessage([], { timestamp: 0 });
  let options: StreamFnOptions | undefined;
  const streamFn: StreamFn = (_model, _context, callOptions) => {
    options = callOptions;
    return stream;
  };
  const push = async (type: "start" | "text_delta" | "done") => {
    if (type === "start") stream.push({ type: "start", partial: message });
    else if (type === "text_delta") {
      if (message.content.length === 0) message.content.push({ type: "text", text: "" });
      (message.content[0] as { text: string }).text += "x";
      stream.push({ type: "text_delta", contentIndex: 0, delta: "x", partial: message });
    } else {
      stream.push({ type: "done", reason: "stop", message });
      stream.end();
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { streamFn, push, signal: () => options?.signal };
}
