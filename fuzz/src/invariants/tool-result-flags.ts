/**
 * Invariant 25: a runner's tool that answers with an `isError` or
 * `terminate` that is no boolean (`"yes"`, `1`) gets an error result naming
 * the flag, never its own answer as the call's result (a truthy `"yes"`
 * counted as a success before).
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { ODD_FLAGS_TEXT } from "../scenario-tools.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "25 a tool result's flags are booleans";

/** Throws when a result in `store` is the answer of a tool whose flags were no booleans. */
export function checkOddToolFlagsRefused(store: readonly AgentMessage[]): void {
  for (const message of store) {
    if (message.role !== "toolResult") continue;
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    if (text.includes(ODD_FLAGS_TEXT))
      throw new InvariantViolation(
        INVARIANT,
        `call ${message.toolCallId} was recorded with the tool's own answer (isError ${message.isError}): "${text}"`,
      );
  }
}
