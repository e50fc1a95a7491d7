/**
 * Invariant 1: the loop's event grammar. `agent_start` first and `agent_end`
 * last, once per run; turns balanced; every `message_start` closed by one
 * `message_end`; every `tool_execution_start` closed by one
 * `tool_execution_end`; a tool result only after its call's end, once; each
 * `turn_end` and `agent_end` carries exactly the messages ended before it
 * (the full list is `assertEventGrammar`'s, in `@turnkit/agent-loop/testing`).
 */
import type { AgentEvent } from "@turnkit/agent-loop";
import { EventGrammarError, assertEventGrammar } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { droppedOfType } from "./event-numbering.js";
import { InvariantViolation } from "./violation.js";

const GRAMMAR = "1 loop event grammar";

/**
 * Checks the events of one or more consecutive runs of an `Agent` (each
 * `prompt()`/`continue()` is a run from `agent_start` to `agent_end`) with
 * the testing kit's `assertEventGrammar`, reported as this invariant.
 */
export function checkLoopEventGrammar(events: readonly AgentEvent[]): void {
  try {
    assertEventGrammar(events);
  } catch (error) {
    if (EventGrammarError.isInstance(error)) {
      throw new InvariantViolation(
        GRAMMAR,
        `event #${error.index} (${events[error.index]?.type ?? "end of events"}): ${error.rule}`,
      );
    }
    throw error;
  }
}

/**
 * The same grammar as a `PiTurnRunner` host sees it: the loop's `agent_*`
 * and `turn_*` events arrive as `debug.trace` events (phase `loop`). A turn
 * may hold several agent runs (steering that arrives as the turn closes starts another run); each must be an
 * `agent_start`, balanced turns, then `agent_end` (the last one may be cut
 * short when a writer given up on never received its end, as announced).
 */
export function checkLoopTraceGrammar(events: readonly RuntimeEvent[]): void {
  let inRun = false;
  let turnOpen = false;
  for (const event of events) {
    if (event.type !== "debug.trace" || event.payload.phase !== "loop") continue;
    const fail = (detail: string): never => {
      throw new InvariantViolation(GRAMMAR, `trace seq ${event.seq} (${event.payload.message}): ${detail}`);
    };
    switch (event.payload.message) {
      case "agent_start":
        if (inRun) fail("agent_start inside a run");
        inRun = true;
        break;
      case "turn_start":
        if (!inRun) fail("turn_start outside a run");
        if (turnOpen) fail("turn_start inside an open turn");
        turnOpen = true;
        break;
      case "turn_end":
        if (!turnOpen) fail("turn_end without turn_start");
        turnOpen = false;
        break;
      case "agent_end":
        if (!inRun) fail("agent_end without agent_start");
        if (turnOpen) fail("agent_end while a turn is open");
        inRun = false;
        break;
      default:
        break;
    }
  }
  // A writer given up on may not have received the end of the run: what it did receive must still be a valid start.
  if (inRun && droppedOfType(events, "debug.trace") === 0)
    throw new InvariantViolation(GRAMMAR, "the turn ended inside an agent run (agent_start without agent_end)");
}
