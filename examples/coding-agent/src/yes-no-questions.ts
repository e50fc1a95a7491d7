import type { ActionRequestAnswerer } from "@turnkit/agent-core";
import type { ElicitationAnswer } from "@turnkit/protocol";
import type { AskPermission } from "./permission-extension.js";

/**
 * Answers a turn's questions for the user (`answerActionRequest`): an MCP
 * server's elicitation whose answer is one yes/no field is asked like a
 * permission (at the prompt in a terminal, by the scripted user or the
 * "no terminal" rule without one); yes accepts with that field `true`, no
 * declines. Anything else is declined: this terminal asks yes/no only.
 */
export function yesNoQuestions(ask: AskPermission): ActionRequestAnswerer {
  return async (request, signal): Promise<ElicitationAnswer | { approved: false; reason: string }> => {
    if (request.kind !== "elicitation") return { approved: false, reason: "this host approves calls itself" };
    const field = yesNoField(request.requestedSchema);
    if (field === undefined) return { action: "decline" };
    const yes = await ask(
      {
        toolCallId: request.toolCallId ?? request.requestId,
        toolName: request.serverName,
        summary: request.message,
        question: `${request.serverName} asks: ${request.message.replace(/\?$/, "")}`,
      },
      signal,
    );
    return yes ? { action: "accept", content: { [field]: true } } : { action: "decline" };
  };
}

/** The name of the schema's only property when it is a boolean, else `undefined`. */
function yesNoField(schema: Record<string, unknown>): string | undefined {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return undefined;
  const entries = Object.entries(properties as Record<string, { type?: unknown }>);
  return entries.length === 1 && entries[0]![1]?.type === "boolean" ? entries[0]![0] : undefined;
}
