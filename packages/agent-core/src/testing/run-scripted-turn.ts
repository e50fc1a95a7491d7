import type { AgentMessage } from "@turnkit/agent-loop";
import { isList, isRecord } from "@turnkit/agent-loop/internal";
import {
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedModel,
  createScriptedModel,
} from "@turnkit/agent-loop/testing";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import type { LlmConfig } from "../call-stack/llm-config.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { describeValue } from "../messages/content-checks.js";
import { PiTurnRunner } from "../pi-turn-runner/pi-turn-runner.js";
import type { PiTurnRunnerOptions } from "../pi-turn-runner/runner-options.js";
import type { RunTurnInput } from "../pi-turn-runner/run-turn-input.js";
import { type HistoryChange, type OnHistoryChangedHook, hookArray } from "../pi-turn-runner/turn-hooks.js";
import { type RecordingEventWriter, createRecordingEventWriter } from "./recording-event-writer.js";
import { checkReadable } from "../input-reading.js";

/** Options of {@link runScriptedTurn}. */
export interface RunScriptedTurnOptions {
  /** What the scripted model answers, one entry per request. Ignored when `model` is given. */
  script?: readonly ScriptEntry[];
  /** A scripted model built by the caller (e.g. with a virtual clock). */
  model?: ScriptedModel;
  /**
   * Fields of the `RunTurnInput` to set. Defaults: `sessionId` `"session-1"`,
   * `turnId` `"turn-1"`, a one-line system prompt, `userMessage` `"hello"`
   * (unless `startMode: "continue"`), `llm` pointing at the scripted model,
   * `llmRetry: false` (a scripted failure is final instead of backing off in
   * real time), `disableBuiltinToolFallback: true` (the model sees only the
   * given tools), and the recording writer.
   */
  input?: Partial<Omit<RunTurnInput, "llm">> & { llm?: Partial<LlmConfig> };
  /** A runner to use. Default: a new `PiTurnRunner` with `runnerOptions`. */
  runner?: PiTurnRunner;
  /** Options of the default runner. Default ids are deterministic: `msg_1`, `msg_2`, ... and `evt_1`, ... */
  runnerOptions?: PiTurnRunnerOptions;
  /** The writer events go to. Default: a fresh {@link createRecordingEventWriter}. */
  writer?: RecordingEventWriter;
}

/** Everything one scripted turn produced. */
export interface ScriptedTurnResult {
  /** What `runTurn` resolved with; a failed or aborted turn is an outcome here, not a rejection. */
  outcome: TurnOutcome;
  /** Every `RuntimeEvent`, in the order the writer received them. */
  events: readonly RuntimeEvent[];
  /** The writer the events went to (the one given in the options, or a new one), to query them by type, message or status. */
  writer: RecordingEventWriter;
  /** Every change `onHistoryChangedHook` accepted (after the input's own hooks), in order. */
  historyChanges: HistoryChange[];
  /** The messages of every `messageDelta`, flattened in delivery order. */
  delivered: AgentMessage[];
  /** The host's stored history after the turn: the input history with each change applied. */
  transcript: AgentMessage[];
  /** The model requests, as the scripted model recorded them. */
  requests: readonly RecordedRequest[];
  /** The scripted model the turn ran on (the one given, or one built from `script`), to check what is left of its script. */
  model: ScriptedModel;
}

/**
 * Runs one turn of a real `PiTurnRunner` against a scripted model and
 * collects what a host would see: events, history changes, the resulting
 * transcript, the model requests and the outcome. Hooks, tools, steering and
 * signal in `input` are used as given; the recording of history runs after
 * the input's own `onHistoryChangedHook`s, so it holds only changes they
 * accepted.
 *
 * Rejects only for invalid input: when `runTurn` does, and with a
 * `TurnkitConfigError` naming the option when `options` is no object or one
 * of its options has a value of the wrong type (a malformed script entry:
 * the scripted model's `TypeError`).
 */
export async function runScriptedTurn(options: RunScriptedTurnOptions = {}): Promise<ScriptedTurnResult> {
  assertOptionsShape(options);
  const model = options.model ?? createScriptedModel(options.script ?? []);
  const writer = options.writer ?? createRecordingEventWriter();
  let messageCount = 0;
  let eventCount = 0;
  const runner =
    options.runner ??
    new PiTurnRunner({
      allocateMessageId: () => `msg_${++messageCount}`,
      newEventId: () => `evt_${++eventCount}`,
      ...options.runnerOptions,
    });

  const given = options.input ?? {};
  const historyChanges: HistoryChange[] = [];
  const record: OnHistoryChangedHook = (change) => {
    historyChanges.push(change);
  };
  // The host's own parts of the input are read here first: one that cannot be read is refused in words, naming it.
  const input: RunTurnInput = checkReadable("runScriptedTurn: options.input", ConfigErrorCode.InvalidTurnInput, () => ({
    sessionId: "session-1",
    turnId: "turn-1",
    systemPrompt: "You are a scripted test assistant.",
    ...(given.startMode === "continue" ? {} : { userMessage: { text: "hello" } }),
    llmRetry: false,
    disableBuiltinToolFallback: true,
    eventWriter: writer,
    ...given,
    llm: { model: model.model, streamFn: model.streamFn, ...given.llm },
    hooks: { ...given.hooks, onHistoryChangedHook: [...hookArray(given.hooks?.onHistoryChangedHook), record] },
  }));

  const outcome = await runner.runTurn(input);
  return {
    outcome,
    events: writer.events,
    writer,
    historyChanges,
    delivered: historyChanges.flatMap((change) => (change.reason === "messageDelta" ? change.messages : [])),
    transcript: applyHistoryChanges(input.history ?? [], historyChanges),
    requests: model.requests,
    model,
  };
}

/**
 * What a host's store holds after applying `changes` to `history`: a
 * `messageDelta` appends, a `replaceMessages` replaces everything. Never
 * mutates its arguments. Throws a `TypeError` naming the argument when
 * `history` is no array, or `changes` no array of changes, each an object
 * with a `reason` of `messageDelta` or `replaceMessages` and a `messages`
 * array.
 */
export function applyHistoryChanges(
  history: readonly AgentMessage[],
  changes: readonly HistoryChange[],
): AgentMessage[] {
  assertHistoryChanges(history, changes);
  let stored = [...history];
  for (const change of changes) {
    if (change.reason === "messageDelta") stored.push(...change.messages);
    else stored = [...change.messages];
  }
  return stored;
}

function assertHistoryChanges(history: unknown, changes: unknown): void {
  const fail = (problem: string) => new TypeError(`applyHistoryChanges: ${problem}`);
  if (!isList(history)) throw fail(`history must be an array of messages, got ${describeValue(history)}`);
  if (!isList(changes)) throw fail(`changes must be an array of history changes, got ${describeValue(changes)}`);
  changes.forEach((change: unknown, index) => {
    if (!isRecord(change))
      throw fail(`changes[${index}] must be a history change object, got ${describeValue(change)}`);
    if (change.reason !== "messageDelta" && change.reason !== "replaceMessages")
      throw fail(
        `changes[${index}].reason must be "messageDelta" or "replaceMessages", got ${describeValue(change.reason)}`,
      );
    if (!isList(change.messages))
      throw fail(`changes[${index}].messages must be an array of messages, got ${describeValue(change.messages)}`);
  });
}

/** The options that must be objects when set (`script` must be an array). Other keys are the caller's, unread. */
const OBJECT_OPTIONS = ["model", "input", "runner", "runnerOptions", "writer"] as const;

function assertOptionsShape(options: unknown): void {
  const invalid = (problem: string) =>
    new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, `runScriptedTurn: ${problem}`);
  if (!isRecord(options)) throw invalid(`options must be an object, got ${describeValue(options)}`);
  if (options.script !== undefined && !isList(options.script))
    throw invalid(`options.script must be an array, got ${describeValue(options.script)}`);
  for (const key of OBJECT_OPTIONS) {
    const value = options[key];
    if (value !== undefined && !isRecord(value))
      throw invalid(`options.${key} must be an object, got ${describeValue(value)}`);
  }
}
