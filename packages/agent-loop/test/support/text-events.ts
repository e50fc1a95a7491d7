import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";

/** The events of a response streaming the text "hi" and ending with `final`: start, text start, one delta, text end, done. */
export function textEvents(final: AssistantMessage): AssistantMessageEvent[] {
  const partial = { ...final, content: [] };
  return [
    { type: "start", partial },
    { type: "text_start", contentIndex: 0, partial },
    { type: "text_delta", contentIndex: 0, delta: "hi", partial },
    { type: "text_end", contentIndex: 0, content: "hi", partial },
    { type: "done", reason: "stop", message: final },
  ];
}
