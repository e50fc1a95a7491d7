import type { UIMessage } from "ai";
import type { TurnkitPartOrigin } from "./turnkit-ui-message.js";
import { readOr, shownType } from "./argument-checks.js";

function partOrigin(part: object): TurnkitPartOrigin | undefined {
  const holder = part as { providerMetadata?: unknown; callProviderMetadata?: unknown };
  const metadata = (holder.providerMetadata ?? holder.callProviderMetadata) as { turnkit?: unknown } | undefined;
  const turnkit = metadata?.turnkit as Partial<TurnkitPartOrigin> | undefined;
  return typeof turnkit?.messageId === "string" ? { messageId: turnkit.messageId } : undefined;
}

/**
 * `message` without the parts a crash superseded: after a worker died in
 * the middle of a model request, the request was sent again, and the
 * stream said so with a `data-turnkit-superseded` part naming the Turnkit
 * message ids of the interrupted attempt. The text, reasoning and tool
 * parts of those ids, the step markers that opened them, and the
 * `data-turnkit-superseded` parts themselves are left out, so the answer
 * reads once. Returns `message` itself when nothing is superseded; never
 * changes it. Throws a `TypeError` for a `message` without a `parts` list.
 */
export function withoutSupersededParts<M extends UIMessage>(message: M): M {
  if (!readOr(() => Array.isArray((message as { parts?: unknown } | null)?.parts), false)) {
    throw new TypeError(
      `withoutSupersededParts: message must be a UIMessage with a parts array, got ${message === null ? "null" : typeof message === "object" ? (shownType(message) === "an unreadable value" ? "an unreadable value" : "an object without parts") : typeof message}`,
    );
  }
  const superseded = new Set<string>();
  for (const part of message.parts) {
    if (part.type === "data-turnkit-superseded") {
      for (const id of (part as { data: { messageIds: string[] } }).data.messageIds) superseded.add(id);
    }
  }
  if (superseded.size === 0) return message;
  const parts: M["parts"] = [];
  for (let i = 0; i < message.parts.length; i++) {
    const part = message.parts[i];
    if (part.type === "data-turnkit-superseded") continue;
    if (part.type === "step-start") {
      const next = message.parts[i + 1];
      const origin = next && partOrigin(next);
      if (origin && superseded.has(origin.messageId)) continue;
    }
    const origin = partOrigin(part);
    if (origin && superseded.has(origin.messageId)) continue;
    parts.push(part);
  }
  return { ...message, parts };
}
