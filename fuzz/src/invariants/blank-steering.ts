/**
 * Invariant 36: steering that says nothing (empty or whitespace-only text,
 * no image; handed over by the steering poll or a step-end hook's
 * `enqueue`) is left out: no history change offered to the host holds a
 * user message that says nothing, the outcome hands none back, and each one
 * the host handed over is counted by a `steering_dropped` warning of the
 * turn (at most that, when a writer given up on never received some
 * warnings).
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import type { TurnOutcome } from "@turnkit/protocol";
import type { TurnRunObservation } from "../observe-turn.js";
import { droppedOfType } from "./event-numbering.js";
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "36 steering that says nothing is left out, and said so";

/** Whether `message` is a user message whose text blocks hold only whitespace and that has no image. */
function saysNothing(message: AgentMessage): boolean {
  if (message.role !== "user") return false;
  const { content } = message;
  if (typeof content === "string") return content.trim() === "";
  return content.every((block) => block.type === "text" && block.text.trim() === "");
}

/** Throws when a message that says nothing was kept, handed back, or left out without its warning. */
export function checkBlankSteeringLeftOut(
  observation: TurnRunObservation,
  outcome: TurnOutcome,
  blankHandedOver: number,
): void {
  observation.offered.forEach(({ change }, index) => {
    const blank = change.messages.find(saysNothing);
    if (blank) throw new InvariantViolation(INVARIANT, `history change #${index} holds ${describeValue(blank)}`);
  });
  const back = (outcome.undeliveredMessages ?? []).find((message) => saysNothing(message as AgentMessage));
  if (back) throw new InvariantViolation(INVARIANT, `the outcome hands back ${describeValue(back)}`);
  let warned = 0;
  for (const event of observation.events)
    if (event.type === "runtime.warning" && !event.origin && event.payload.code === "steering_dropped")
      warned += event.payload.count;
  const cutShort = droppedOfType(observation.events, "runtime.warning") > 0;
  if (cutShort ? warned > blankHandedOver : warned !== blankHandedOver)
    throw new InvariantViolation(
      INVARIANT,
      `the host handed over ${blankHandedOver} messages that say nothing; steering_dropped warnings count ${warned}`,
    );
}
