import { type AgentMessage } from "@turnkit/agent-loop";
import { errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode } from "@turnkit/protocol";
import { createUserMessage } from "../messages/turn-messages.js";
import { isErrorOrAborted } from "./assistant-message.js";
import { MAX_CLOSE_ATTEMPTS, pollSteering, tryBeginClose } from "./steering.js";
import { failTurn } from "./turn-failure.js";
import type { RunningTurn } from "./turn-state.js";
import { reportTrace } from "./turn-log.js";

/**
 * Step 7 of a turn: prompts the Agent with the hidden messages and the
 * user's message (or continues the history), waits until it is idle, then
 * converges: steering that arrived meanwhile runs too, until the turn
 * closes. Does not start at all when the turn was cancelled before start or
 * has failed already (a writer that threw at `running`). Never rejects: an
 * unexpected error fails the turn with code `internal`.
 */
export async function runAgent(turn: RunningTurn): Promise<void> {
  if (turn.cancelledBeforeStart || turn.failure) return;
  try {
    const { input, agent } = turn;
    const prompts: AgentMessage[] = [...(input.beforeUserMessages ?? [])];
    if (input.startMode !== "continue" && input.userMessage) {
      const { text, images, batchId } = input.userMessage;
      prompts.push(createUserMessage(text, { images, batchId }));
    }
    await (prompts.length > 0 ? agent.prompt(prompts) : agent.continue());
  } catch (error) {
    failUnexpectedly(turn, error);
    return;
  }
  await convergeAtIdle(turn);
}

/** An error nothing else handled fails the turn with code `internal`. */
function failUnexpectedly(turn: RunningTurn, error: unknown): void {
  failTurn(turn, { code: ErrorCode.Internal, message: `The turn failed unexpectedly: ${errorText(error)}` });
}

/**
 * After the Agent is idle: runs queued messages, polls steering at the
 * `exit` boundary and tries to close, until closing succeeds or the turn
 * failed, was aborted or ended in an error response. A turn that was asked
 * to stop (a `skip`, the host's stop checks) runs no queued work: it asks
 * `tryBeginClose` once, so the host closes intake, and ends; what is still
 * queued is handed back in the outcome. Gives up (with a warning) when
 * `tryBeginClose` keeps refusing without new work. Never rejects: an
 * unexpected error fails the turn with code `internal`.
 */
async function convergeAtIdle(turn: RunningTurn): Promise<void> {
  const { agent, input } = turn;
  try {
    for (let attempt = 0; attempt < MAX_CLOSE_ATTEMPTS; attempt++) {
      if (turn.failure || input.signal?.aborted || turn.settled) return;
      const last = agent.state.messages[agent.state.messages.length - 1];
      if (isErrorOrAborted(last)) return;
      if (turn.stopRequested) {
        if (!turn.closed && input.tryBeginClose) await tryBeginClose(turn, last);
        return;
      }
      if (agent.hasQueuedMessages()) {
        await agent.continue();
        continue;
      }
      if (turn.closed || !input.tryBeginClose) return;
      // Steering that arrived is queued now; the loop top checks abort and failure again before
      // continuing: an abort during the poll hit an idle agent, so it would not stop the next run.
      if ((await pollSteering(turn, "exit")) > 0 || turn.stopRequested) continue;
      if (await tryBeginClose(turn, last)) return;
    }
    reportTrace(turn, "turn", "warn", "tryBeginClose kept refusing without new work; the turn ends");
  } catch (error) {
    failUnexpectedly(turn, error);
  }
}
