// Why this file is long: it is the one plain-data vocabulary of a generated scenario, each type with its contract.
/**
 * The data of one generated scenario: what the scripted model answers, how
 * each tool call behaves, what the hooks decide, and what the host does and
 * when. Plain, printable data (fast-check prints it as the counterexample),
 * turned into a live run by `run-agent-scenario.ts` / `run-turn-scenario.ts`.
 */
import type { Usage } from "@mariozechner/pi-ai";
import type { HostileHostSpec } from "./hostile-host.js";
import type { HandWrittenStreamSpec } from "./hand-written-streams.js";
import type { WholeBlocksSpec } from "./whole-blocks.js";
import type { AgentSettingsSpec, LaterRun, PromptForm } from "./agent-settings.js";

/** How long a tool (or anything else the scenario controls) takes before it answers. */
export type Delay =
  | { kind: "now" }
  /** Resolves after `count` microtask turns: concurrency without time. */
  | { kind: "microtasks"; count: number }
  /** Resolves after `ms` on the scenario's virtual clock (honours the abort signal). */
  | { kind: "clock"; ms: number };

/**
 * How a tool's answer is malformed: a text block whose `text` is a number,
 * no answer at all (`undefined`, `null`), a string, an object without
 * `content`, `content` that is no list, a revoked proxy (nothing of it can
 * be read), or an object whose `content` getter throws.
 */
export type MalformedResult =
  | "text-number"
  | "undefined"
  | "null"
  | "string"
  | "no-content"
  | "content-not-list"
  | "revoked"
  | "throwing-getter";

/**
 * How a runner's tool hands over its result the way careless JavaScript
 * does: a thenable (no promise) that resolves twice, resolves and then
 * rejects, rejects and then resolves, or resolves and then throws from its
 * `then`; 200 progress updates in one synchronous burst; the host aborting
 * the turn from inside the tool as it returns; or a progress update sent
 * once the whole turn settled (nothing may reach the writer then); or
 * progress and result details holding a list with a length of 2^32 - 1
 * and one entry (events carry it as `"[Too long]"`, at once). Only the
 * first answer counts.
 */
export type OddToolAnswer =
  | "thenableTwice"
  | "resolveThenReject"
  | "rejectThenResolve"
  | "thenThrowsAfterResolve"
  | "updateBurst"
  | "abortOnReturn"
  | "updateAfterTurn"
  | "hugeLists";

/** What one tool call does when executed. */
export type ToolBehaviour =
  | {
      kind: "result";
      delay: Delay;
      /** `onUpdate` calls while running. */
      updates: number;
      /** One more `onUpdate` after the tool settled (must be ignored). */
      lateUpdate: boolean;
      /** Its text ends in half a character (a lone UTF-16 surrogate, as a cut inside an emoji leaves): a runner's history holds none. */
      halfCharacter?: boolean;
      /** Progress details with a cycle, a bigint and a function (a runner's traces stay JSON-safe, invariant 20). */
      oddUpdateDetails?: boolean;
      /** One progress update that is no object or cannot be read (`null`, a number, a revoked proxy, a `content` getter that throws), sent first: dropped or shown, never the call's failure. */
      oddUpdate?: "null" | "number" | "revoked" | "getter";
      /** Result details with a cycle, a bigint and a function, from a runner's tool (its events and history stay plain JSON, invariant 20). */
      oddResultDetails?: boolean;
      terminate: boolean;
      isError: boolean;
      /** Answers no well-formed result (see {@link MalformedResult}): the layer must record an error result naming what is wrong, and the run goes on. */
      malformed?: MalformedResult;
      /** A runner's tool answers `isError: "yes"` and `terminate: 1` (flags that are no booleans): an error result naming the flag (invariant 25). */
      oddFlags?: boolean;
      /** How a runner's tool answers besides its result (see {@link OddToolAnswer}); absent: a promise of it. */
      oddAnswer?: OddToolAnswer;
    }
  /**
   * `unreadable`: what it throws is no Error, and its `toString` throws; `"revoked"`: it throws a revoked
   * proxy, of which not even the prototype can be read; `"hugeList"`: it throws a list whose length is
   * 2^32 - 1 (either way the call still gets an error result, at once).
   */
  | { kind: "throw"; delay: Delay; unreadable?: boolean | "revoked" | "hugeList" }
  /** Never settles on its own; rejects when the run's signal fires. */
  | { kind: "hang" }
  /** Asks the host (`ctx.askHost`) once per entry, one after the other, then answers with the outcomes. */
  | { kind: "ask"; asks: AskSpec[] };

/** One question a tool asks the host: how long it waits (`default`: the turn's default; 0 is not a valid timeout), and whether it is well formed. */
export interface AskSpec {
  timeoutMs: number | "default";
  /** The question is malformed (its `serverName` a number, its `requestedSchema` holding a bigint): refused at once, naming the field. */
  malformed?: boolean;
  /** The question is the asking call's own approval (`tool_approval`), not an elicitation (unless malformed). */
  approval?: boolean;
  /** The question cannot be read (a revoked proxy): refused at once, request id `invalid:...`, nobody asked. */
  unreadable?: boolean;
}

/**
 * How the host's `answerActionRequest` answers its n-th call: at once
 * (`accept`, `decline`, a value that is no answer, a throw), on the virtual
 * clock after `ms` (taking the question down when the turn stops waiting,
 * as a real host does), or never (ignoring the signal).
 */
export type HostAnswerSpec =
  | { kind: "accept" | "decline" | "invalid" | "throw" }
  | { kind: "late"; ms: number; answer: "accept" | "reject" }
  | { kind: "never" };

/** The arguments the model sends for a call. */
export type CallArguments =
  /** Valid for the schema `{ value?: string, n?: number }`. */
  | { kind: "valid"; value: string }
  /** Coercible (`n` as a numeric string): valid after conversion. */
  | { kind: "coercible"; n: string }
  /** Invalid for the schema (`n` not a number). */
  | { kind: "invalid" }
  /** Makes the tool's `prepareArguments` throw (only the `prepared` tool has one). */
  | { kind: "prepareThrows" }
  /** A sub-agent's `{ task }`. */
  | { kind: "task"; task: string };

/** One tool call of a scripted response. `id` is unique within the scenario. */
export interface CallSpec {
  id: string;
  /** One of {@link TOOL_NAMES}, or {@link UNKNOWN_TOOL}. */
  tool: string;
  args: CallArguments;
  behaviour: ToolBehaviour;
}

/** How the stream of one response ends or misbehaves. */
export type StreamEnding =
  | { kind: "normal" }
  /** The first `events` events, then an `error` event with `message`. */
  | { kind: "errorAfter"; events: number; message: string }
  /** The first `afterEvents` events, then nothing until the request's signal fires. */
  | { kind: "hang"; afterEvents: number }
  | { kind: "throwSync" }
  | { kind: "reject" }
  | { kind: "endWithoutDone" }
  /** Extra events after `done` that reach the consumer's iterator. */
  | { kind: "eventsAfterDone" }
  | { kind: "withoutStart" };

/** One assistant response of the script. */
export interface ResponseSpec {
  /** Unique marker; every text this response streams starts with `«token»`. */
  token: string;
  thinking: string | undefined;
  /** Visible text after the token, or `undefined` for no text block. */
  text: string | undefined;
  calls: CallSpec[];
  /**
   * `natural`: `toolUse` with calls, else `stop`. `length`: cut at the token
   * limit. `aborted`: the provider ended it so, unasked. `stop` and `toolUse`:
   * that reason whatever the calls, as providers sometimes report it (`stop`
   * with calls, `toolUse` without).
   */
  stopReason: "natural" | "length" | "aborted" | "stop" | "toolUse";
  ending: StreamEnding;
  /** Delay before every event, on the virtual clock (0: microtasks only). */
  eventDelayMs: number;
  /** Characters per delta; `undefined` splits text into words. */
  chunkSize: number | undefined;
  /** The usage the provider reports (`reported-usage.ts`); absent: all zeros. */
  usage?: Usage;
}

/**
 * A provider attempt that fails before the real response of a request is
 * streamed: `status` leads the error text (`"429 ..."`), as pi-ai reports
 * HTTP failures. `visible` attempts stream some text first (then no retry may
 * follow); others fail before any output.
 */
export interface ProviderFailureSpec {
  token: string;
  status: 400 | 401 | 403 | 408 | 429 | 500 | 501 | 503 | 529;
  visible: boolean;
  /** Adds "Please try again in Ns" so the retry layer reads a Retry-After hint. */
  retryAfterSeconds: number | undefined;
}

/** One request's worth of script: failed attempts first, then the response. */
export interface RequestSpec {
  failures: ProviderFailureSpec[];
  response: ResponseSpec;
}

/** When a host action happens. */
export type Trigger =
  /** Inside the host's observer of the `index`-th event (Agent listener or event writer), 0-based. */
  | { kind: "event"; index: number }
  /** At `ms` on the virtual clock. */
  | { kind: "time"; ms: number }
  /** Inside the host's listener of every `agent_end` (Agent scenarios only): after the run ended. */
  | { kind: "agentEnd" };

/**
 * Something the host does during a run. Agent scenarios only: `malformed`, a
 * malformed message handed to `steer`, `steerBatch` or `followUp`, which
 * must throw a `TypeError`; `clear`, the next of `clearSteeringQueue`,
 * `clearFollowUpQueue` and `clearAllQueues` in turn.
 */
export interface HostAction {
  trigger: Trigger;
  kind: "steer" | "steerBatch" | "followUp" | "abort" | "malformed" | "clear";
  /** For `malformed`: which malformed call (cycling through them). */
  variant?: number;
  /**
   * Runner scenarios, for `steer`, `steerBatch` and `followUp`: steering
   * that says nothing (empty or whitespace-only text, no image): `one`, the
   * message (a batch: its second member), `all`, every member of a batch.
   */
  blank?: "one" | "all";
}

/** Names of the tools every scenario binds. `prepared` has a `prepareArguments`. */
export const TOOL_NAMES = ["alpha", "beta", "gamma", "prepared"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** A tool name no scenario binds (L5: unknown tool). */
export const UNKNOWN_TOOL = "ghost";

/** How a tool declares its execution mode (`undefined`: the layer's default). */
export type ToolModes = Record<ToolName, "parallel" | "sequential" | undefined>;

// ------------------------------------------------------------------ Agent

/** A `beforeToolCall` decision; `abort` aborts the run from inside the hook, then allows. */
export type BeforeToolDecision = "allow" | "block" | "terminateAgent" | "throw" | "abort" | "revoked";

/** An `afterToolCall` decision. */
export type AfterToolDecision =
  | "none"
  | "patchContent"
  | "isError"
  | "terminate"
  | "terminateAgent"
  | "throw"
  | "revoked";

/** An `onToolExecutionStart` behaviour; `abort` aborts the run right before `execute`. */
export type ToolStartDecision = "observe" | "throw" | "abort" | "revoked";

/**
 * The loop-level callbacks of an `Agent`, each a list of decisions taken in
 * call order (the n-th call takes the n-th decision; past the end, the
 * harmless default). `undefined`: the callback is not set.
 */
export interface AgentHookSpec {
  beforeToolCall: BeforeToolDecision[] | undefined;
  afterToolCall: AfterToolDecision[] | undefined;
  onToolExecutionStart: ToolStartDecision[] | undefined;
  shouldStopAfterTurn: (boolean | "throw" | "revoked")[] | undefined;
  shouldStopAfterSteering: (boolean | "throw" | "revoked")[] | undefined;
  transformContext: ("pass" | "throw" | "noArray" | "revoked")[] | undefined;
}

/** A second listener that fails on one event (the "host observer failing"). */
export interface ListenerFailureSpec {
  index: number;
  mode: "throw" | "reject";
}

/**
 * A listener that changes the set of listeners while its `index`-th event
 * is handed out: `add` subscribes a new one, `remove` unsubscribes the one
 * after it, `move` unsubscribes that one and subscribes it again.
 */
export interface ListenerChurnSpec {
  index: number;
  kind: "add" | "remove" | "move";
}

/** One generated run of an `Agent`. */
export interface AgentScenario {
  requests: ResponseSpec[];
  toolModes: ToolModes;
  toolExecution: "parallel" | "sequential";
  steeringMode: "one-at-a-time" | "all";
  followUpMode: "one-at-a-time" | "all";
  hooks: AgentHookSpec;
  actions: HostAction[];
  listenerFailure: ListenerFailureSpec | undefined;
  /** Listeners subscribed or unsubscribed while an event is handed out (default none). */
  listenerChurn?: ListenerChurnSpec;
  /** Microtask turns the recording listener takes on every event (0: synchronous). */
  listenerTicks: number;
  /** After `prompt()` settles, `continue()` while messages are queued (a second run). */
  continueWhileQueued: boolean;
  /** Start from an earlier exchange (user, tool call, result, answer). */
  withHistory: boolean;
  /** Settings of the agent that reach each request's options (the differential property sets them; default none). */
  settings?: AgentSettingsSpec;
  /** How the first run is started (default `message`: `prompt(message)`). */
  promptForm?: PromptForm;
  /** A run after the first and the optional `continue()` (default none). */
  laterRun?: LaterRun;
  /** Responses (by token) that stream an event of a type pi-ai does not have before `done` (default none). */
  unknownEvents?: string[];
  /** How the virtual clock is driven, as a turn's `pacing` (absent: every chain settles before the next timer). */
  pacing?: number;
  /** Answered by pi-ai's faux provider through `streamSimple` instead of a stream function (default: the scripted model). */
  faux?: FauxProviderSpec;
  /** The scripted model streams into one live message, as providers do (`livePartial`; default false). */
  livePartial?: boolean;
}

/** How pi-ai's faux provider (`registerFauxProvider`) answers a run's requests. */
export interface FauxProviderSpec {
  /** Token sizes of the streamed chunks, in tokens of four characters (equal bounds: the same chunks on every run). */
  tokenSize: { min: number; max: number };
  /** The response (by index) whose factory throws instead. */
  factoryThrowsAt: number | undefined;
  /** Every response comes from a factory that answers after a macrotask. */
  lateFactories: boolean;
  /** Responses left out at the end of the script. */
  missing: number;
}

// ------------------------------------------------------------------ PiTurnRunner

/**
 * A `beforeLlmCallHook` decision; `throw`, `invalid` (an unknown type) and
 * `malformed` (a replacement whose message content is of the wrong shape)
 * fail closed.
 */
export type BeforeLlmDecision =
  | "continue"
  | "skip"
  | "respond"
  | "replaceRequestMessages"
  | "replaceMessages"
  | "appendMessage"
  | "abort"
  | "throw"
  | "invalid"
  | "malformed"
  | "edit"
  | "unreadable"
  | "revoked";

/**
 * An `afterLlmCallHook` decision; `malformed` is a `replaceText` whose text
 * is no string. `unreadable` (both LLM hooks and both tool hooks): a
 * decision one field of which (each in turn) is a getter that throws or is
 * refused by a proxy's `get` trap, which must fail the turn (or block the
 * call, or make its result an error) as the hook's failure, naming the field.
 */
export type AfterLlmDecision =
  | "continue"
  | "replaceText"
  | "retry"
  | "fail"
  | "throw"
  | "invalid"
  | "malformed"
  | "edit"
  | "unreadable"
  | "revoked";

/**
 * The eight `PiTurnHooks`, each a list of decisions in call order (see
 * {@link AgentHookSpec}). `edit`, in every hook: the hook wrecks what it
 * was handed (messages, the response, the call, its arguments, the result,
 * the change, the step) and decides nothing, which must change nothing.
 * `revoked`, in every hook: the hook answers with a revoked proxy, which no
 * code can read (not even whether it is a promise): the hook's failure, in
 * words, never the engine's text.
 */
export interface TurnHookSpec {
  beforeLlmCall: BeforeLlmDecision[] | undefined;
  onLlmCallPrepared: ("observe" | "throw" | "reject" | "edit" | "revoked")[] | undefined;
  afterLlmCall: AfterLlmDecision[] | undefined;
  /** `malformed`: a decision whose `block` is no boolean (blocks the call); `unreadable`: one field of it cannot be read (blocks the call). */
  beforeToolCall:
    | ("allow" | "block" | "blockPermission" | "throw" | "abort" | "malformed" | "edit" | "unreadable" | "revoked")[]
    | undefined;
  onToolExecutionStart: (ToolStartDecision | "edit" | "revoked")[] | undefined;
  /** `malformed`: a patch whose `content` is a plain string (an error result); `unreadable`: one field of it cannot be read (an error result). */
  afterToolCall: (AfterToolDecision | "malformed" | "edit" | "unreadable" | "revoked")[] | undefined;
  onHistoryChanged: ("accept" | "throw" | "edit" | "revoked")[] | undefined;
  /**
   * `enqueueMalformed`: queues a user message whose content is no text (`enqueue` throws; the hook goes on);
   * `enqueueBlank`: queues one that says nothing (whitespace only), which the turn leaves out.
   */
  onStepEnd: ("none" | "enqueue" | "enqueueMalformed" | "enqueueBlank" | "throw" | "edit" | "revoked")[] | undefined;
}

/**
 * A writer that answers late from its `from`-th event on (0-based): each
 * `push` resolves (`resolve`) or rejects (`reject`) `ms` later on the
 * virtual clock, or never answers (`never`; only the abort grace ends the
 * wait). The turn goes on meanwhile; its events wait behind the call.
 */
export type SlowWriterSpec =
  | { from: number; answer: "resolve" | "reject"; ms: number }
  | { from: number; answer: "never" };

/** The host's event writer: how fast it answers and whether it fails once. */
export interface WriterSpec {
  /** Microtask turns before `push` resolves (0: synchronous writer). */
  asyncTicks: number;
  /** Fails once: throws, rejects, answers a thenable whose `then` throws, or answers a revoked proxy (nothing of it can be read). */
  failAt: { index: number; mode: "throw" | "reject" | "thenableThrows" | "revoked" } | undefined;
  /** Answers late (or never) from some event on; takes precedence over `asyncTicks` there. */
  slow: SlowWriterSpec | undefined;
}

/** The host's message-id allocator fails on its `index`-th call (0-based). */
export interface AllocatorFailureSpec {
  /** Which id source fails: the message-id allocator or the runner's `newEventId` (which answers synchronously). */
  target: "message" | "event";
  index: number;
  /** `reject` is a throw for `newEventId`; `empty` answers "", `number` answers 5 and `revoked` a revoked proxy, none an id. */
  mode: "throw" | "reject" | "empty" | "number" | "revoked";
}

/** The host's side of steering. Lists are per call, as for hooks. */
export interface SteeringSpec {
  /** The n-th poll throws (a failing host callback). */
  pollThrowsAt: number | undefined;
  tryBeginClose: boolean[] | undefined;
  shouldStopAfterSteering: boolean[] | undefined;
  shouldStopAfterTurn: boolean[] | undefined;
}

/** `llmRetry` of the turn; all delays on the virtual clock. */
export type RetrySpec =
  | { enabled: false }
  | {
      enabled: true;
      maxRetries: number;
      baseDelayMs: number;
      maxDelayMs: number;
      maxRetryElapsedMs: number;
      jitter: number;
    };

/**
 * What a sub-agent's child turn does, per call: answers (after its own tool
 * call, perhaps), fails, hangs (until an abort or a stream watchdog ends
 * it), reaches its own budget, or calls a sub-agent of its own.
 */
export type ChildBehaviour =
  /**
   * `textless`: the child writes `CHILD_PREAMBLE` beside its tool call, and its final response has no text (an error result, never the preamble).
   * `toolSteps` (with `withTool`): how many responses call a tool before the answer; default 1.
   */
  | { kind: "answer"; eventDelayMs: number; withTool: boolean; textless?: boolean; toolSteps?: number }
  | { kind: "fail"; afterEvents: number }
  | { kind: "hang"; afterEvents: number }
  | { kind: "toolHang" }
  | { kind: "overBudget" }
  | { kind: "nested"; inner: "answer" | "fail" | "hang" }
  /** One hook of the child's definition never answers; the turn sets `hookTimeoutMs` (`TurnScenario.hookTimeoutMs`), which must bound it. */
  | {
      kind: "hookHang";
      hook: "beforeLlmCallHook" | "afterLlmCallHook" | "beforeToolCallHook" | "onHistoryChangedHook";
    };

/** One sub-agent a generated turn offers: the model calls it by `name` (`sub1`, `sub2`, ...). */
export interface SubAgentSpec {
  name: string;
  child: ChildBehaviour;
  executionMode: "parallel" | "sequential";
  /** What each response of its children reports spending, which counts for the parent's budget; absent: nothing. */
  spends?: { output: number; cost: number };
  /** Its definition's budget, often larger than the parent's (the child's is lowered to what the parent has left); absent: none (`overBudget`: one step). */
  budget?: { maxSteps?: number; maxOutputTokens?: number; maxCost?: number };
  /** A host layer (`runCall`) runs each call with a definition whose budget has this bad field: every call is refused, naming it. */
  invalidCallBudget?: { field: "maxSteps" | "maxOutputTokens" | "maxCost"; value: unknown };
}

/** One generated `runTurn`. */
export interface TurnScenario {
  requests: RequestSpec[];
  toolModes: ToolModes;
  hooks: TurnHookSpec;
  actions: HostAction[];
  writer: WriterSpec;
  allocatorFailure: AllocatorFailureSpec | undefined;
  steering: SteeringSpec;
  retry: RetrySpec;
  /** Stream watchdogs: the defaults (120 s / 300 s on the virtual clock) or off. */
  streamTimeouts: "default" | "off";
  abortBeforeStart: boolean;
  withHistory: boolean;
  beforeUserMessages: boolean;
  /** The turn's limits (`RunTurnInput.budget`): a few steps, output tokens or a small cost; absent: none. */
  budget?: { maxSteps?: number; maxOutputTokens?: number; maxCost?: number };
  /**
   * How the virtual clock is driven: absent, every promise chain settles
   * (a macrotask) before the next timer fires; a number seeds a
   * pseudo-random mix of a few microtask ticks or macrotasks between timers,
   * so a timer may fire while other work is still mid-chain, as on a loaded
   * machine. Only a turn observed alone is paced.
   */
  pacing?: number;
  /** The host hands the turn a warning (`RunTurnInput.warnings`) with fields besides its own that JSON cannot write (invariant 20). */
  hostWarnings?: boolean;
  /** A hostile host (throwing logger and callbacks, hung hook members, steering bursts); absent in the other runner properties. */
  hostile?: HostileHostSpec;
  /** Sub-agents the turn offers (calls name them); absent outside the sub-agent property. */
  subAgents?: SubAgentSpec[];
  /** The turn's `hookTimeoutMs`, set when a sub-agent's hook never answers (invariant 26); the hostile host sets its own. */
  hookTimeoutMs?: number;
  /**
   * The host's `answerActionRequest`, one answer per call in call order
   * (past the end: `accept`), or `absent` (no function: every question is
   * refused); undefined outside the ask-the-host property.
   */
  hostAnswers?: HostAnswerSpec[] | "absent";
  /**
   * Tokens of responses whose final message the provider hands over
   * malformed (one more text block, without its text); absent outside the
   * main runner property.
   */
  malformedFinals?: string[];
  /**
   * Responses (by token) that stream one more event just before their
   * final one: malformed (no object, no type, a delta that is no string, a
   * finished tool call without an id) or of a type pi-ai does not have;
   * absent outside the main runner property.
   */
  malformedEvents?: { token: string; event: MalformedEventKind }[];
  /**
   * Responses (by token) whose final message carries a usage that cannot
   * be read (a revoked proxy, or a getter that throws): the runner counts it
   * as nothing and the response stands. Absent outside the main runner
   * property.
   */
  unreadableUsage?: { token: string; kind: "revoked" | "getter" }[];
  /**
   * Calls of the stream function (by their place, from 0) that answer a
   * stream written by hand instead of pi-ai's (`src/hand-written-streams.ts`):
   * a second `done`, an iterator whose `return()` fails, an `end()` of its
   * own, a read that throws or answers `null`. Absent outside the main
   * runner property.
   */
  handWrittenStreams?: HandWrittenStreamSpec[];
  /**
   * Calls of the stream function (by their place, from 0) whose text or
   * thinking blocks (or both) come whole, without deltas, at their block's
   * end (`src/whole-blocks.ts`). Absent outside the main runner property.
   */
  wholeBlocks?: WholeBlocksSpec[];
  /**
   * The scripted responses stream into one live message, as pi-ai's
   * providers do, read ahead of the turn (`src/live-partials.ts`). Absent
   * outside the runner properties.
   */
  livePartials?: boolean;
  /** Every hook answers through a thenable that answers twice (`answeringTwice` in `scenario-turn-hooks.ts`); absent outside the main runner property. */
  hooksAnswerTwice?: boolean;
}

/** The extra event a response of `malformedEvents` streams (see `withMalformedEvents`). */
export type MalformedEventKind = "null" | "string" | "noType" | "numberDelta" | "nullToolCall" | "unknownType";
