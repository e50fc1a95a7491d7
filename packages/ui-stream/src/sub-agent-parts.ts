import type { EventOrigin, MessagePersistedPayload, RuntimeEvent } from "@turnkit/protocol";
import { contentText } from "./content-text.js";
import { UIStreamError, UIStreamErrorCode } from "./errors.js";
import type { TurnkitSubAgentPart, TurnkitUIMessageChunk } from "./turnkit-ui-message.js";

/**
 * Folds the events a turn passes on from its sub-agents (those with
 * `origin`) into one {@link TurnkitSubAgentPart} per sub-agent call, keyed
 * by its path, so that a page shows each call's progress, tool calls and
 * result under the call, and a message holds a few parts per sub-agent,
 * not one per event. Streamed deltas and traces change nothing shown:
 * they send no part. Pure: the same events give the same parts.
 */
export class SubAgentParts {
  private readonly calls = new Map<string, TurnkitSubAgentPart>();

  /** The chunks `event` (a sub-agent's event) adds: its call's part again when the event changed it, else none. */
  map(event: RuntimeEvent): TurnkitUIMessageChunk[] {
    const origin = event.origin;
    if (origin === undefined) return [];
    const id = `sub-agent-${origin.path.map((step) => step.toolCallId).join("/")}`;
    const previous = this.calls.get(id);
    const part = previous ?? {
      toolCallId: origin.toolCallId,
      path: origin.path.map((step) => ({ ...step })),
      agent: origin.path.at(-1)!.agent,
      turnId: origin.turnId,
      status: "running",
      steps: 0,
      text: "",
      tools: [],
    };
    const next = changed(part, event);
    if (next === part && previous !== undefined) return [];
    this.calls.set(id, next);
    return [{ type: "data-turnkit-sub-agent", id, data: next }];
  }
}

/** `part` as `event` leaves it: a new object when the event changed what is shown, else `part` itself. */
function changed(part: TurnkitSubAgentPart, event: RuntimeEvent): TurnkitSubAgentPart {
  switch (event.type) {
    case "session.status": {
      const { status, error } = event.payload;
      if (status === part.status) return part;
      return { ...part, status, ...(error !== undefined && { error: { code: error.code, message: error.message } }) };
    }
    case "message.persisted":
      // A history rewritten in full (compacted) takes back nothing the page has shown.
      return event.payload.reason === "messageDelta" ? withMessages(part, event.payload) : part;
    default:
      return part;
  }
}

/** `part` with the sub-agent's newly persisted messages: its answers' text and steps, its calls and their results. */
function withMessages(part: TurnkitSubAgentPart, payload: MessagePersistedPayload): TurnkitSubAgentPart {
  let { text, steps } = part;
  const tools = [...part.tools];
  for (const message of payload.messages as { role?: unknown; content?: unknown }[]) {
    if (message.role === "assistant") {
      steps++;
      const said = contentText(message.content).trim();
      if (said !== "") text = text === "" ? said : `${text}\n${said}`;
      for (const block of Array.isArray(message.content) ? message.content : [])
        if (block?.type === "toolCall")
          tools.push({ toolCallId: String(block.id), toolName: String(block.name), state: "running" });
    } else if (message.role === "toolResult") {
      const result = message as { toolCallId?: unknown; isError?: unknown; content?: unknown };
      const index = tools.findIndex((tool) => tool.toolCallId === result.toolCallId && tool.state === "running");
      if (index === -1) continue;
      tools[index] = {
        ...tools[index]!,
        state: result.isError === true ? "failed" : "done",
        output: contentText(result.content),
      };
    }
  }
  return { ...part, text, steps, tools };
}
