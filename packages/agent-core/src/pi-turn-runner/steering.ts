import type { AgentMessage } from "@turnkit/agent-loop";
import { errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode } from "@turnkit/protocol";
import { describeValue, inputMessageProblem } from "../messages/content-checks.js";
import { copyForHost, copyFromHost } from "../messages/host-copy.js";
import { createUserMessage, isBlankUserInput } from "../messages/turn-messages.js";
import { askHost } from "./host-calls.js";
import type { SteeringBoundary, TurnInputMessage } from "./run-turn-input.js";
import { failTurn } from "./turn-failure.js";
import type { RunningTurn } from "./turn-state.js";
import { reportTrace } from "./turn-log.js";
import { emitWarning } from "./turn-watching.js";

/** How many times the runner polls again after `tryBeginClose` refused without new work. */
export const MAX_CLOSE_ATTEMPTS = 64;

/**
 * Polls the host's `getSteeringMessages` once and queues what arrived on the
 * Agent, in arrival order; messages sharing a batch id go in together (by
 * `steerBatch`). Each one counts as handed over until history delivery
 * takes it (else the outcome hands it back). A message that says nothing
 * (see {@link leaveOutBlankSteering}) is left out. Returns how many
 * messages were queued (0 without a poll, or when the poll failed or
 * answered anything but a list of well-formed messages `{ text, images?,
 * batchId? }`: that fails the turn, code `internal`, naming the callback
 * and the field; none of that answer is queued, and its well-formed
 * messages, but for those that say nothing, are handed back in the outcome).
 */
export async function pollSteering(turn: RunningTurn, boundary: SteeringBoundary): Promise<number> {
  const poll = turn.input.getSteeringMessages;
  if (!poll) return 0;
  const answer = await askHost<TurnInputMessage[] | null | undefined>(
    turn,
    "getSteeringMessages",
    () => poll({ boundary }),
    [],
  );
  if (answer !== null && answer !== undefined && !Array.isArray(answer)) {
    failTurn(turn, {
      code: ErrorCode.Internal,
      message: `The host callback getSteeringMessages returned ${typeof answer}, not an array of messages`,
    });
    return 0;
  }
  let received: TurnInputMessage[];
  try {
    // A copy, read once (a field whose read throws fails here, naming the callback); a hole stays a hole, refused below.
    received = copyFromHost(answer ?? []);
  } catch (error) {
    failTurn(turn, {
      code: ErrorCode.Internal,
      message: `The host callback getSteeringMessages returned an answer that could not be read: ${errorText(error)}`,
    });
    return 0;
  }
  // By index up to the first bad entry: a hole is an `undefined` message, refused as one.
  let bad: { index: number; problem: string } | undefined;
  for (let index = 0; index < received.length && !bad; index++) {
    const problem = inputMessageProblem(received[index]);
    if (problem !== undefined) bad = { index, problem };
  }
  if (bad) {
    // Nothing of the answer runs; its well-formed messages are handed back with the outcome, never lost, but
    // for those that say nothing, left out as always (Object.values: only the entries there are, also of a
    // list with a length of 2^32 - 1).
    let blank = 0;
    for (const item of Object.values(received)) {
      if (inputMessageProblem(item) !== undefined) continue;
      const message = steeringMessage(item);
      if (isBlankUserInput(message)) blank++;
      else (turn.undelivered ??= new Set()).add(message);
    }
    leaveOutBlankSteering(turn, blank, "getSteeringMessages");
    failTurn(turn, {
      code: ErrorCode.Internal,
      message: `The host callback getSteeringMessages returned an invalid message: [${bad.index}]${bad.problem}`,
    });
    return 0;
  }
  // Groups in arrival order (a batch sits where its first message arrived), so a message
  // without a batch id is never moved ahead of a batch that came before it.
  const groups: { batched: boolean; messages: AgentMessage[] }[] = [];
  const batches = new Map<string, AgentMessage[]>();
  let queued = 0;
  for (const item of received) {
    const message = steeringMessage(item);
    if (isBlankUserInput(message)) continue;
    queued++;
    (turn.undelivered ??= new Set()).add(message);
    const batch = item.batchId === undefined ? undefined : batches.get(item.batchId);
    if (batch) {
      batch.push(message);
      continue;
    }
    const group = { batched: item.batchId !== undefined, messages: [message] };
    if (item.batchId !== undefined) batches.set(item.batchId, group.messages);
    groups.push(group);
  }
  for (const group of groups) {
    if (group.batched) turn.agent.steerBatch(group.messages);
    else turn.agent.steer(group.messages[0]!);
  }
  if (queued > 0) reportTrace(turn, "steering", "info", "steering received", { boundary, count: queued });
  leaveOutBlankSteering(turn, received.length - queued, "getSteeringMessages");
  return queued;
}

/**
 * Says that `count` steering messages of one hand-over said nothing (text
 * empty or only whitespace, no image) and were left out: a provider drops
 * such a message (Anthropic's, leaving a request that ends with the
 * model's own answer) or sends an empty one, and one at the turn's end
 * would make the turn ask the model again for nothing. Such a message is
 * neither queued, nor delivered into history, nor handed back (handing it
 * back would have the host send it again); a `steering_dropped` warning
 * and a trace say so. pi's `Agent` sends it as it is.
 */
export function leaveOutBlankSteering(
  turn: RunningTurn,
  count: number,
  source: "getSteeringMessages" | "enqueue",
): void {
  if (count === 0) return;
  const message = `${count === 1 ? "1 steering message" : `${count} steering messages`} from ${source} said nothing (empty or whitespace-only text, no image) and ${count === 1 ? "was" : "were"} left out`;
  reportTrace(turn, "steering", "warn", message, { count, source });
  emitWarning(turn, { code: "steering_dropped", message, count, source });
}

/** The user message a steering item becomes. */
function steeringMessage(item: TurnInputMessage): AgentMessage {
  return createUserMessage(item.text, { images: item.images, batchId: item.batchId });
}

/**
 * Asks the host's `tryBeginClose` to close intake; on `true` the turn is
 * closed (no more steering is taken). `false` means new work won the race
 * (or the callback failed, or answered anything but a boolean: that fails
 * the turn, code `internal`, naming the callback). Only called when the
 * input has a `tryBeginClose`.
 */
export async function tryBeginClose(
  turn: RunningTurn,
  lastAssistantMessage: AgentMessage | undefined,
): Promise<boolean> {
  const close = turn.input.tryBeginClose!;
  const closed: unknown = await askHost<unknown>(
    turn,
    "tryBeginClose",
    () => close({ lastAssistantMessage: copyForHost(lastAssistantMessage) }),
    false,
  );
  // Anything but a boolean is a host's bug: neither a close nor new work, so intake would stay open behind an ended turn.
  if (typeof closed !== "boolean") {
    failTurn(turn, {
      code: ErrorCode.Internal,
      message: `The host callback tryBeginClose returned ${describeValue(closed)}, not a boolean`,
    });
    return false;
  }
  if (closed) turn.closed = true;
  return closed;
}
