import { ABANDONED, errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode, type RuntimeEventPayloadMap, type RuntimeEventType, type StepReport } from "@turnkit/protocol";
import { EventBridge } from "../event-bridge/event-bridge.js";
import { HookAbandonedError, awaitHostCall } from "./host-calls.js";
import { failTurn } from "./turn-failure.js";
import type { TurnState } from "./turn-state.js";
import { takeStepReport } from "./turn-watching.js";

/** Never called: a turn's bridge sends and allocates through its turn (the base class's callbacks are not used). */
function unusedOutput(): void {}
function unusedAllocator(): string {
  return "";
}

/**
 * A turn's EventBridge: its payloads go to the turn's event queue (a
 * step's finish chunk carries the step's report), and its message ids come
 * from the host's allocator as a host call of the turn. Methods reading the
 * turn, rather than two callbacks made for each turn: many turns may run at once.
 */
export class TurnEventBridge extends EventBridge {
  constructor(private readonly turn: TurnState) {
    super(unusedOutput, unusedAllocator, turn.defaults.now);
  }

  protected override emit<TType extends RuntimeEventType>(type: TType, payload: RuntimeEventPayloadMap[TType]): void {
    this.turn.events.push(type, payload);
  }

  protected override stepReport(): StepReport | undefined {
    return takeStepReport(this.turn);
  }

  protected override allocateId(): string | Promise<string> {
    return allocateMessageId(this.turn);
  }
}

/**
 * The host's message id allocator, as a host call of the turn: a failure
 * fails the turn as the host's fault (`internal`, naming the allocator),
 * never the provider's; an allocator still pending past the abort grace is
 * given up on. Rejects in both cases, so the bridge never names a message.
 */
function allocateMessageId(turn: TurnState): string | Promise<string> {
  if (turn.settled) return awaitMessageId(turn, () => undefined as never);
  const { input, defaults } = turn;
  let answer: string | Promise<string>;
  try {
    answer = defaults.allocateMessageId({ sessionId: input.sessionId, turnId: input.turnId });
  } catch (error) {
    return awaitMessageId(turn, () => {
      throw error;
    });
  }
  // An id known at once is used at once: the bridge then makes the loop wait for nothing.
  return typeof answer === "string" ? answer : awaitMessageId(turn, () => answer);
}

/** The allocator's answer (`call` returns it, or throws what the allocator threw) as a host call of the turn. */
async function awaitMessageId(turn: TurnState, call: () => string | Promise<string>): Promise<string> {
  let id: string | typeof ABANDONED;
  try {
    id = await awaitHostCall(turn, "allocateMessageId", call);
  } catch (error) {
    failTurn(
      turn,
      { code: ErrorCode.Internal, message: `The host callback allocateMessageId failed: ${errorText(error)}` },
      true,
    );
    throw error;
  }
  if (id === ABANDONED) throw new HookAbandonedError("allocateMessageId");
  return id;
}
