import { hasBrand } from "../brand.js";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import type { AgentEvent, AgentMessage } from "../types.js";
import { agentEventProblem, assertAgentEvents } from "./agent-event-checks.js";
import {
  assertArrayArgument,
  assertOptionsArgument,
  assertStringArgument,
  readArgumentFields,
} from "../argument-checks.js";
import { describeValue, isList } from "../message-checks.js";

const EVENT_GRAMMAR_ERROR_MARKER = Symbol.for("turnkit.agent-loop.EventGrammarError");

/**
 * Thrown by {@link assertEventGrammar} at the first event that breaks the
 * grammar. The message names the rule, the event's index and the events
 * around it; `isInstance` recognises it across copies of the package.
 */
export class EventGrammarError extends Error {
  /** Stable code of every grammar violation. */
  readonly code = "event_grammar" as const;
  /** Index of the offending event (`events.length` when the events simply stop too early). */
  readonly index: number;
  /** The broken rule, in words (the message without the event window). */
  readonly rule: string;
  /** Brand `isInstance` checks. */
  readonly [EVENT_GRAMMAR_ERROR_MARKER] = true;

  /**
   * `options`: the `index` of the offending event (an integer from 0), the
   * broken `rule` in words and the `events` checked (agent events), each
   * read once; anything else is a `TypeError` naming it.
   */
  constructor(options: { index: number; rule: string; events: readonly AgentEvent[] }) {
    const where = "EventGrammarError";
    const { index, rule, events } = readArgumentFields(options, where, "options", ["index", "rule", "events"]);
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0)
      throw new TypeError(`${where}: options.index must be an integer from 0, got ${describeValue(index)}`);
    assertStringArgument(rule, where, "options.rule");
    assertArrayArgument(events, where, "options.events", "agent events");
    const from = Math.max(0, index - 3);
    const shown = events.slice(from, index + 2);
    shown.forEach((event, offset) => {
      const problem = agentEventProblem(event);
      if (problem) throw new TypeError(`${where}: options.events[${from + offset}]${problem}`);
    });
    const window = (shown as AgentEvent[])
      .map((event, offset) => `  #${from + offset} ${describeChecked(event)}`)
      .join("\n");
    super(`Event grammar violated at #${index}: ${rule}${window ? `\n${window}` : ""}`);
    this.name = "EventGrammarError";
    this.index = index;
    this.rule = rule;
  }

  /** True for an EventGrammarError from any copy of the package. */
  static isInstance(value: unknown): value is EventGrammarError {
    return hasBrand(value, EVENT_GRAMMAR_ERROR_MARKER);
  }
}

/** Options of {@link assertEventGrammar}. */
export interface EventGrammarOptions {
  /**
   * How many runs (`agent_start` … `agent_end`) the events must hold. Default:
   * any number from one up, so the events of an `Agent` over several
   * `prompt()` / `continue()` calls can be checked at once.
   */
  runs?: number;
}

/** What one run has seen so far. */
interface RunState {
  turnOpen: boolean;
  /** The message between its `message_start` and `message_end`. */
  openMessage: AgentMessage | undefined;
  /** Every message ended in this run, in order: must equal `agent_end.messages`. */
  endedMessages: AgentMessage[];
  /** Tool results ended in the current turn: must equal `turn_end.toolResults`. */
  turnToolResults: ToolResultMessage[];
  /** The assistant message ended in the current turn: must be `turn_end.message`. */
  turnAssistant: AssistantMessage | undefined;
}

/**
 * Checks the event grammar every run of the loop follows, whatever happened
 * in it, over the events of one or more consecutive runs:
 *
 * - the first event is `agent_start`; each run ends with one `agent_end`,
 *   and nothing comes between runs;
 * - `turn_start` / `turn_end` alternate and are balanced;
 * - every `message_start` is closed by one `message_end` of the same role
 *   (and, for a non-assistant message, the same object) before another
 *   message opens; `message_update` only inside an open assistant message;
 * - an assistant message and tool executions happen inside a turn;
 * - every `tool_execution_start` is closed by one `tool_execution_end`, each
 *   call id once; `tool_execution_update` only while its call runs;
 * - a tool result comes after its call's `tool_execution_end`, once per call;
 * - `turn_end.toolResults` are exactly the tool results ended since the turn
 *   started, in order, and `turn_end.message` is the turn's assistant
 *   message; a completed assistant message with tool calls (not `error` /
 *   `aborted`) has a result for every call by its `turn_end`;
 * - `agent_end.messages` are exactly the messages ended in that run, in
 *   order (the transcript a host builds from `message_end` is the run's
 *   result).
 *
 * Returns nothing when the events follow the grammar; throws
 * {@link EventGrammarError} naming the first violation otherwise, and a
 * `TypeError` when `events` is no array, one of them is no agent event (see
 * {@link describeEvent}), or `options` (when given) is no object.
 */
export function assertEventGrammar(events: readonly AgentEvent[], options: EventGrammarOptions = {}): void {
  const fail = (index: number, rule: string): never => {
    throw new EventGrammarError({ index, rule, events });
  };
  if (!isList(events as unknown)) {
    throw new TypeError(
      `assertEventGrammar: expected an array of events, got ${events === null ? "null" : typeof events}`,
    );
  }
  assertAgentEvents(events, "assertEventGrammar");
  assertOptionsArgument(options, "assertEventGrammar");
  if (events.length === 0) fail(0, "no events");
  if (events[0]!.type !== "agent_start") fail(0, "first event is not agent_start");
  let run: RunState | undefined;
  let runsEnded = 0;
  const startedCalls = new Set<string>();
  const endedCalls = new Set<string>();
  const answeredCalls = new Set<string>();

  events.forEach((event, index) => {
    if (!run && event.type !== "agent_start")
      fail(index, `${event.type} outside a run (after agent_end, agent_end is not last)`);
    const state = run!;
    switch (event.type) {
      case "agent_start":
        if (run) fail(index, "agent_start inside a run");
        if (options.runs !== undefined && runsEnded >= options.runs)
          fail(index, `more than ${options.runs} runs (agent_end is not last)`);
        run = {
          turnOpen: false,
          openMessage: undefined,
          endedMessages: [],
          turnToolResults: [],
          turnAssistant: undefined,
        };
        return;
      case "agent_end": {
        if (state.turnOpen) fail(index, "agent_end while a turn is open");
        if (state.openMessage) fail(index, `agent_end while a ${state.openMessage.role} message is open`);
        const unclosed = [...startedCalls].filter((id) => !endedCalls.has(id));
        if (unclosed.length > 0)
          fail(index, `agent_end while tool calls are open (tool executions never ended): ${unclosed.join(", ")}`);
        if (!sameItems(event.messages, state.endedMessages)) {
          fail(
            index,
            `agent_end.messages (${event.messages.length}) differ from the message_end messages (${state.endedMessages.length})`,
          );
        }
        run = undefined;
        runsEnded += 1;
        return;
      }
      case "turn_start":
        if (state.turnOpen) fail(index, "turn_start inside a turn");
        state.turnOpen = true;
        state.turnToolResults = [];
        state.turnAssistant = undefined;
        return;
      case "turn_end":
        checkTurnEnd(event, state, fail.bind(undefined, index));
        state.turnOpen = false;
        return;
      case "message_start":
        if (state.openMessage)
          fail(index, `message_start while another message is open (a ${state.openMessage.role} message)`);
        if (event.message.role === "assistant" && !state.turnOpen) fail(index, "assistant message outside a turn");
        state.openMessage = event.message;
        return;
      case "message_update":
        if (state.openMessage?.role !== "assistant") fail(index, "message_update outside an open assistant message");
        state.openMessage = event.message;
        return;
      case "message_end":
        checkMessageEnd(event.message, state, { endedCalls, answeredCalls }, fail.bind(undefined, index));
        return;
      case "tool_execution_start":
        if (!state.turnOpen) fail(index, "tool_execution_start outside a turn");
        if (startedCalls.has(event.toolCallId)) fail(index, `tool call ${event.toolCallId} started twice`);
        startedCalls.add(event.toolCallId);
        return;
      case "tool_execution_update":
        if (!startedCalls.has(event.toolCallId) || endedCalls.has(event.toolCallId)) {
          fail(index, `tool_execution_update of call ${event.toolCallId} outside its execution (it is not running)`);
        }
        return;
      case "tool_execution_end":
        if (!startedCalls.has(event.toolCallId) || endedCalls.has(event.toolCallId)) {
          fail(index, `tool_execution_end of call ${event.toolCallId}, which is not running`);
        }
        endedCalls.add(event.toolCallId);
        return;
      default: {
        const unknown: never = event;
        fail(index, `unknown event ${JSON.stringify(unknown)}`);
      }
    }
  });
  if (run) fail(events.length, "the run has no agent_end (the last run never emitted agent_end)");
  if (options.runs !== undefined && runsEnded !== options.runs)
    fail(events.length, `${runsEnded} runs, expected ${options.runs}`);
}

function checkTurnEnd(
  event: Extract<AgentEvent, { type: "turn_end" }>,
  state: RunState,
  fail: (rule: string) => never,
): void {
  if (!state.turnOpen) fail("turn_end without turn_start");
  if (state.openMessage) fail(`turn_end while a ${state.openMessage.role} message is open`);
  if (!sameItems(event.toolResults, state.turnToolResults))
    fail("turn_end.toolResults differ from the tool results ended in this turn");
  if (state.turnAssistant && event.message !== state.turnAssistant)
    fail("turn_end.message is not the turn's assistant message");
  const message = event.message;
  if (message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted") {
    const answered = new Set(event.toolResults.map((result) => result.toolCallId));
    for (const block of message.content) {
      if (block.type === "toolCall" && !answered.has(block.id)) fail(`tool call ${block.id} has no result at turn_end`);
    }
  }
}

function checkMessageEnd(
  message: AgentMessage,
  state: RunState,
  calls: { endedCalls: ReadonlySet<string>; answeredCalls: Set<string> },
  fail: (rule: string) => never,
): void {
  const open = state.openMessage;
  if (!open) fail("message_end without message_start");
  if (open!.role !== message.role) fail(`message_end of a ${message.role} message closes a ${open!.role} message`);
  if (message.role === "toolResult") {
    if (!calls.endedCalls.has(message.toolCallId))
      fail(`tool result for ${message.toolCallId} before its tool_execution_end`);
    if (calls.answeredCalls.has(message.toolCallId)) fail(`second tool result for ${message.toolCallId}`);
  }
  if (open!.role !== "assistant" && open !== message)
    fail("message_end closes a different message than message_start opened");
  if (message.role === "assistant") state.turnAssistant = message;
  if (message.role === "toolResult") {
    calls.answeredCalls.add(message.toolCallId);
    state.turnToolResults.push(message);
  }
  state.endedMessages.push(message);
  state.openMessage = undefined;
}

function sameItems<T>(actual: readonly T[], expected: readonly T[]): boolean {
  return actual.length === expected.length && actual.every((item, at) => item === expected[at]);
}

/**
 * One line per event, for readable sequence assertions:
 * `message_end:assistant:toolUse`, `tool_execution_end:call_1:error`,
 * `turn_end:2` (the number of tool results). Throws a `TypeError` naming
 * the field when `event` is no agent event: an object with a known `type`
 * and the fields of that type (its message, tool results or tool call id).
 */
export function describeEvent(event: AgentEvent): string {
  const problem = agentEventProblem(event);
  if (problem) throw new TypeError(`describeEvent: event${problem}`);
  return describeChecked(event);
}

/** {@link describeEvent} of an event already checked. */
function describeChecked(event: AgentEvent): string {
  switch (event.type) {
    case "message_start":
    case "message_update":
      // A partial's stop reason means nothing yet.
      return `${event.type}:${event.message.role === "assistant" ? "assistant" : describeMessage(event.message)}`;
    case "message_end":
      return `${event.type}:${describeMessage(event.message)}`;
    case "turn_end":
      return `turn_end:${event.toolResults.length}`;
    case "tool_execution_start":
    case "tool_execution_update":
      return `${event.type}:${event.toolCallId}`;
    case "tool_execution_end":
      return `tool_execution_end:${event.toolCallId}${event.isError ? ":error" : ""}`;
    case "agent_start":
    case "agent_end":
    case "turn_start":
      return event.type;
    default: {
      const unknown: never = event;
      return String(unknown);
    }
  }
}

function describeMessage(message: AgentMessage): string {
  switch (message.role) {
    case "assistant":
      return `assistant:${message.stopReason}`;
    case "toolResult":
      return `toolResult:${message.toolCallId}${message.isError ? ":error" : ""}`;
    default:
      return message.role;
  }
}

/**
 * The run as {@link describeEvent} lines without `message_update` and
 * `tool_execution_update` (their number depends on chunking): the shape a
 * scenario asserts. Throws a `TypeError` naming the argument when `events`
 * is no array, or the first of them that is no agent event (see
 * {@link describeEvent}).
 */
export function traceOf(events: readonly AgentEvent[]): string[] {
  assertArrayArgument(events, "traceOf", "events", "agent events");
  assertAgentEvents(events, "traceOf");
  return events
    .filter((event) => event.type !== "message_update" && event.type !== "tool_execution_update")
    .map(describeChecked);
}
