/**
 * Invariant 1: the loop's event grammar. `agent_start` first and `agent_end`
 * last, once per run; turns balanced; every `message_start` closed by one
 * `message_end`; every `tool_execution_start` closed by one
 * `tool_execution_end`; a tool result only after its call's end, once.
 */
import type { AgentEvent, AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeEvent } from "@turnkit/protocol";
import { InvariantViolation } from "./violation.js";

const GRAMMAR = "1 loop event grammar";

/**
 * Checks the events of one or more consecutive runs of an `Agent` (each
 * `prompt()`/`continue()` is a run from `agent_start` to `agent_end`).
 */
export function checkLoopEventGrammar(events: readonly AgentEvent[]): void {
  const fail = (index: number, detail: string): never => {
    throw new InvariantViolation(GRAMMAR, `event #${index} (${events[index]?.type ?? "end of events"}): ${detail}`);
  };
  if (events.length === 0) fail(0, "no events at all");
  let inRun = false;
  let turnOpen = false;
  let open: AgentMessage | undefined;
  const started = new Set<string>();
  const ended = new Set<string>();
  const answered = new Set<string>();
  events.forEach((event, index) => {
    if (!inRun && event.type !== "agent_start") fail(index, "event outside a run (before agent_start or after agent_end)");
    switch (event.type) {
      case "agent_start":
        if (inRun) fail(index, "agent_start inside a run");
        inRun = true;
        turnOpen = false;
        return;
      case "agent_end": {
        if (open) fail(index, `agent_end while a ${open.role} message is open`);
        if (turnOpen) fail(index, "agent_end while a turn is open");
        const unclosed = [...started].filter((id) => !ended.has(id));
        if (unclosed.length > 0) fail(index, `agent_end with tool executions never ended: ${unclosed.join(", ")}`);
        inRun = false;
        return;
      }
      case "turn_start":
        if (turnOpen) fail(index, "turn_start inside an open turn");
        turnOpen = true;
        return;
      case "turn_end":
        if (!turnOpen) fail(index, "turn_end without turn_start");
        if (open) fail(index, `turn_end while a ${open.role} message is open`);
        turnOpen = false;
        return;
      case "message_start":
        if (open) fail(index, `message_start while a ${open.role} message is open`);
        if (event.message.role === "assistant" && !turnOpen) fail(index, "assistant message outside a turn");
        open = event.message;
        return;
      case "message_update":
        if (!open || open.role !== "assistant") fail(index, "message_update outside an assistant message");
        open = event.message;
        return;
      case "message_end": {
        if (!open) fail(index, "message_end without message_start");
        if (open!.role !== event.message.role) fail(index, `message_end of a ${event.message.role} closes a ${open!.role} message`);
        open = undefined;
        const message = event.message;
        if (message.role === "toolResult") {
          if (!ended.has(message.toolCallId)) fail(index, `tool result for ${message.toolCallId} before its tool_execution_end`);
          if (answered.has(message.toolCallId)) fail(index, `second tool result for ${message.toolCallId}`);
          answered.add(message.toolCallId);
        }
        return;
      }
      case "tool_execution_start":
        if (!turnOpen) fail(index, "tool execution outside a turn");
        if (started.has(event.toolCallId)) fail(index, `tool_execution_start of ${event.toolCallId} twice`);
        started.add(event.toolCallId);
        return;
      case "tool_execution_update":
        if (!started.has(event.toolCallId) || ended.has(event.toolCallId)) {
          fail(index, `tool_execution_update of ${event.toolCallId} outside its execution`);
        }
        return;
      case "tool_execution_end":
        if (!started.has(event.toolCallId)) fail(index, `tool_execution_end of ${event.toolCallId} without start`);
        if (ended.has(event.toolCallId)) fail(index, `tool_execution_end of ${event.toolCallId} twice`);
        ended.add(event.toolCallId);
        return;
      default: {
        const unknown: never = event;
        fail(index, `unknown event ${JSON.stringify(unknown)}`);
      }
    }
  });
  if (inRun) fail(events.length, "the last run never emitted agent_end");
}

/**
 * The same grammar as a `PiTurnRunner` host sees it: the loop's `agent_*`
 * and `turn_*` events arrive as `debug.trace` events (phase `loop`). A turn
 * may hold several agent runs (convergence at idle, T7); each must be an
 * `agent_start`, balanced turns, then `agent_end`.
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
  if (inRun) throw new InvariantViolation(GRAMMAR, "the turn ended inside an agent run (agent_start without agent_end)");
}
