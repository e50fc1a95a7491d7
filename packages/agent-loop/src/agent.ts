// Why this file is long: it is the one stateful Agent class with pi's public API, each method carrying its contract (what it queues, throws or refuses); the loop, queues, state and option checks live in their own files.
import {
  streamSimple,
  type ImageContent,
  type Message,
  type SimpleStreamOptions,
  type ThinkingBudgets,
  type Transport,
} from "@mariozechner/pi-ai";
import {
  QUEUE_MODES,
  assertAgentOptions,
  assertOneOf,
  type AgentListener,
  type AgentOptions,
} from "./agent-options.js";
import { deliverToListeners } from "./listener-delivery.js";
import { agentRunConfig } from "./agent-loop-config.js";
import { continueRun, startRun } from "./agent-loop.js";
import { MutableAgentState, UNSET_MODEL, applyEventToState } from "./agent-state.js";
import { defaultConvertToLlm } from "./default-convert-to-llm.js";
import { DEFAULT_QUEUE_MODE, DEFAULT_TOOL_EXECUTION } from "./defaults.js";
import { assertAgentMessage, assertAgentMessages } from "./message-checks.js";
import { MessageQueue } from "./message-queue.js";
import { promptMessages } from "./prompt-messages.js";
import { ABORTED_ERROR_MESSAGE, errorText, failedAssistantMessage } from "./synthetic-messages.js";
import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentContext,
  AgentEvent,
  AgentMessage,
  AgentState,
  BeforeToolCallContext,
  BeforeToolCallResult,
  QueueMode,
  ShouldStopAfterSteeringContext,
  ShouldStopAfterTurnContext,
  StreamFn,
  ToolExecutionMode,
  ToolExecutionStartContext,
} from "./types.js";

/**
 * Node's `setMaxListeners` (`undefined` outside Node, which has no such
 * warning): a run's own signal is shared by every tool call of a batch, as
 * in pi, and a batch of more than ten calls that each listen on it (a
 * `fetch(url, { signal })`) is no leak. Read without a static import, so
 * the loop still runs in a browser.
 */
const setMaxListeners = (
  globalThis as {
    process?: { getBuiltinModule?: (id: string) => { setMaxListeners?: (n: number, target: EventTarget) => void } };
  }
).process?.getBuiltinModule?.("node:events")?.setMaxListeners;

interface ActiveRun {
  promise: Promise<void>;
  abortController: AbortController;
  /** Whether the run was aborted when its `agent_end` came; `undefined` before that. An abort from then on comes after the run. */
  abortedAtEnd?: boolean;
}

/**
 * The stateful agent: owns the transcript, runs the loop, exposes
 * steering and follow-up queues. API-compatible with pi-agent-core 0.73's
 * `Agent`; the README lists the deliberate differences.
 *
 * Contracts: the transcript is built from `message_end` events; listeners are
 * awaited in subscription order; `prompt()`, `continue()` and
 * `waitForIdle()` settle only after every `agent_end` listener returned; a
 * run never leaves the agent streaming, whatever throws. After `abort()`, a
 * listener that ignores the signal is waited for at most a short grace period.
 */
export class Agent {
  private readonly _state: MutableAgentState;
  private readonly listeners = new Set<AgentListener>();
  private readonly steeringQueue: MessageQueue;
  private readonly followUpQueue: MessageQueue;
  private activeRun: ActiveRun | undefined;

  /** Converts the transcript to provider messages before each request; a throw fails the run (behaviour L9). */
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Rewrites the transcript before each request (pruning, injection); see `AgentLoopConfig.transformContext`. A throw fails the run (behaviour L9). */
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /** The stream function of every request; pi-ai `streamSimple` unless given. Hosts may wrap it. */
  streamFn: StreamFn;
  /** Resolves the API key for each request, asked again every time (short-lived tokens). `undefined` lets the provider use its env var. */
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  /** Forwarded to the stream function: inspect or replace the provider payload before it is sent. */
  onPayload?: SimpleStreamOptions["onPayload"];
  /** Forwarded to the stream function: called with the HTTP status and headers before the body is read. */
  onResponse?: SimpleStreamOptions["onResponse"];
  /** Runs after argument validation; may block the call (error result) or stop the agent after the batch. A throw blocks the call. */
  beforeToolCall?: (context: BeforeToolCallContext, signal?: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  /** Runs after `execute`, before `tool_execution_end`; its patch is merged field by field. A throw makes the result an error. */
  afterToolCall?: (context: AfterToolCallContext, signal?: AbortSignal) => Promise<AfterToolCallResult | undefined>;
  /** Turnkit addition: after each `turn_end`, true ends the run without polling the queues. */
  shouldStopAfterTurn?: (context: ShouldStopAfterTurnContext) => boolean | Promise<boolean>;
  /** Turnkit addition: after steering arrived at a step end, true ends the run without a request (the steering is recorded). */
  shouldStopAfterSteering?: (context: ShouldStopAfterSteeringContext) => boolean | Promise<boolean>;
  /** Turnkit addition: observes each admitted call right before `execute`; errors are ignored. */
  onToolExecutionStart?: (context: ToolExecutionStartContext, signal?: AbortSignal) => void | Promise<void>;
  /** Session identifier forwarded to providers for cache-aware backends. */
  sessionId?: string;
  /** Per-level thinking token budgets forwarded to the stream function. */
  thinkingBudgets?: ThinkingBudgets;
  /** Preferred transport forwarded to the stream function. Default `"auto"`, as in pi. */
  transport: Transport;
  /** Cap for provider-requested retry delays, forwarded to the stream function. */
  maxRetryDelayMs?: number;
  /** How the tool calls of one response run. */
  toolExecution: ToolExecutionMode;

  constructor(options: AgentOptions = {}) {
    assertAgentOptions(options);
    const initial = options.initialState ?? {};
    this._state = new MutableAgentState(initial.model ?? UNSET_MODEL);
    if (initial.systemPrompt !== undefined) this._state.systemPrompt = initial.systemPrompt;
    if (initial.thinkingLevel !== undefined) this._state.thinkingLevel = initial.thinkingLevel;
    if (initial.tools) this._state.tools = initial.tools;
    if (initial.messages) this._state.messages = initial.messages;
    this.convertToLlm = options.convertToLlm ?? defaultConvertToLlm;
    this.transformContext = options.transformContext;
    this.streamFn = options.streamFn ?? streamSimple;
    this.getApiKey = options.getApiKey;
    this.onPayload = options.onPayload;
    this.onResponse = options.onResponse;
    this.beforeToolCall = options.beforeToolCall;
    this.afterToolCall = options.afterToolCall;
    this.shouldStopAfterTurn = options.shouldStopAfterTurn;
    this.shouldStopAfterSteering = options.shouldStopAfterSteering;
    this.onToolExecutionStart = options.onToolExecutionStart;
    this.steeringQueue = new MessageQueue(options.steeringMode ?? DEFAULT_QUEUE_MODE);
    this.followUpQueue = new MessageQueue(options.followUpMode ?? DEFAULT_QUEUE_MODE);
    this.sessionId = options.sessionId;
    this.thinkingBudgets = options.thinkingBudgets;
    this.transport = options.transport ?? "auto";
    this.maxRetryDelayMs = options.maxRetryDelayMs;
    this.toolExecution = options.toolExecution ?? DEFAULT_TOOL_EXECUTION;
  }

  /**
   * Adds a listener (once: adding it again changes nothing); returns a
   * function that removes it. Listeners are awaited in subscription order
   * and receive the run's abort signal. As in pi, the set is live while an
   * event is handed out: a listener added meanwhile gets that event too,
   * one removed before its turn does not.
   * A listener that throws fails the run like any other callback.
   */
  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Current state. Assigning `state.tools` or `state.messages` copies the array. */
  get state(): AgentState {
    return this._state;
  }

  /** How queued steering messages are drained. */
  get steeringMode(): QueueMode {
    return this.steeringQueue.mode;
  }
  /** Takes effect at the next poll; queued messages are kept. */
  set steeringMode(mode: QueueMode) {
    assertOneOf(mode, QUEUE_MODES, "steeringMode");
    this.steeringQueue.mode = mode;
  }

  /** How queued follow-up messages are drained. */
  get followUpMode(): QueueMode {
    return this.followUpQueue.mode;
  }
  /** Takes effect at the next poll; queued messages are kept. */
  set followUpMode(mode: QueueMode) {
    assertOneOf(mode, QUEUE_MODES, "followUpMode");
    this.followUpQueue.mode = mode;
  }

  /**
   * Queues a message to inject after the current step's tool calls finish.
   * Throws a `TypeError` naming the field for a malformed message (see
   * `prompt`), which is not queued.
   */
  steer(message: AgentMessage): void {
    assertAgentMessage(message, "Agent.steer");
    this.steeringQueue.enqueue([message]);
  }

  /**
   * Turnkit addition: queues several messages that are always injected
   * together, as one poll, even in `one-at-a-time` mode. Throws a
   * `TypeError` naming the field when one is malformed; none is queued then.
   */
  steerBatch(messages: AgentMessage[]): void {
    assertAgentMessages(messages, "Agent.steerBatch", "messages");
    this.steeringQueue.enqueue(messages);
  }

  /**
   * Queues a message to run only after the agent would otherwise stop.
   * Throws a `TypeError` naming the field for a malformed message, which is
   * not queued.
   */
  followUp(message: AgentMessage): void {
    assertAgentMessage(message, "Agent.followUp");
    this.followUpQueue.enqueue([message]);
  }

  /** Removes every queued steering message. */
  clearSteeringQueue(): void {
    this.steeringQueue.clear();
  }

  /** Removes every queued follow-up message. */
  clearFollowUpQueue(): void {
    this.followUpQueue.clear();
  }

  /** Removes every queued steering and follow-up message. */
  clearAllQueues(): void {
    this.clearSteeringQueue();
    this.clearFollowUpQueue();
  }

  /** True when either queue holds messages. */
  hasQueuedMessages(): boolean {
    return this.steeringQueue.hasItems || this.followUpQueue.hasItems;
  }

  /** Abort signal of the current run, if one is active. */
  get signal(): AbortSignal | undefined {
    return this.activeRun?.abortController.signal;
  }

  /** Aborts the current run, if any: the request, tools, hooks and listeners see the signal. */
  abort(): void {
    this.activeRun?.abortController.abort();
  }

  /** Resolves when the current run and every listener of its `agent_end` have finished. */
  waitForIdle(): Promise<void> {
    return this.activeRun?.promise ?? Promise.resolve();
  }

  /** Clears the transcript, runtime state and queues. */
  reset(): void {
    this._state.messages = [];
    this._state.isStreaming = false;
    this._state.streamingMessage = undefined;
    this._state.clearPendingToolCalls();
    this._state.errorMessage = undefined;
    this.clearAllQueues();
  }

  /**
   * Starts a run from text (with optional images), one message, or several.
   * Throws while a run is active: use `steer()` or `followUp()` then.
   * Turnkit addition: rejects with a `TypeError` naming the field, before
   * anything runs, for input that is none of these or a malformed message:
   * not an object with a string `role`; a `user` message whose content is
   * not text or a list of text and image blocks; an `assistant` or
   * `toolResult` message whose blocks lack their string fields. A host's
   * own roles pass unchecked. (pi's `Agent` takes such input and fails, or
   * keeps it in the transcript, later.)
   */
  prompt(message: AgentMessage | AgentMessage[]): Promise<void>;
  prompt(input: string, images?: ImageContent[]): Promise<void>;
  async prompt(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): Promise<void> {
    if (this.activeRun) {
      throw new Error(
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.",
      );
    }
    await this.runLoop(promptMessages(input, images));
  }

  /**
   * Continues from the transcript. On a user or tool-result tail, requests a
   * response. On an assistant tail, runs queued steering, else queued
   * follow-ups, else throws. Throws while a run is active.
   */
  async continue(): Promise<void> {
    if (this.activeRun) {
      throw new Error(
        "Agent is already processing. Wait for completion before continuing, or use steer() or followUp().",
      );
    }
    const last = this._state.messages[this._state.messages.length - 1];
    if (!last) throw new Error("No messages to continue from");
    if (last.role === "assistant") {
      const steering = this.steeringQueue.drain();
      if (steering.length > 0) return this.runLoop(steering, true);
      const followUps = this.followUpQueue.drain();
      if (followUps.length > 0) return this.runLoop(followUps);
      throw new Error("Cannot continue from message role: assistant");
    }
    await this.runLoop(undefined);
  }

  /** Runs the loop on a snapshot of the state: with `prompts`, or continuing the transcript without. */
  private runLoop(prompts: AgentMessage[] | undefined, skipInitialSteeringPoll = false): Promise<void> {
    return this.runWithLifecycle((signal) => {
      const context: AgentContext = {
        systemPrompt: this._state.systemPrompt,
        messages: this._state.messages.slice(),
        tools: this._state.tools.slice(),
      };
      const queues = { steering: this.steeringQueue, followUp: this.followUpQueue };
      const config = agentRunConfig(this, this._state, queues, skipInitialSteeringPoll);
      const sink = (event: AgentEvent) => this.deliver(event);
      return prompts
        ? startRun(prompts, context, config, sink, signal, this.streamFn)
        : continueRun(context, config, sink, signal, this.streamFn);
    });
  }

  private async runWithLifecycle(execute: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
    const abortController = new AbortController();
    // Any number of the run's tool calls may listen on its signal without Node warning of a leak (0: no limit).
    setMaxListeners?.(0, abortController.signal);
    let resolveRun!: () => void;
    const promise = new Promise<void>((resolve) => {
      resolveRun = resolve;
    });
    const run: ActiveRun = { promise, abortController };
    this.activeRun = run;
    this._state.isStreaming = true;
    this._state.streamingMessage = undefined;
    this._state.errorMessage = undefined;
    try {
      await execute(abortController.signal);
    } catch (error) {
      // The loop never rejects; this guards against a bug rather than a path.
      const failure = failedAssistantMessage(this._state.model, error, abortController.signal.aborted);
      this._state.messages.push(failure);
      this._state.errorMessage = failure.errorMessage;
    } finally {
      // An aborted run that recorded no aborted response (e.g. aborted during
      // tools, where no request follows: behaviour L10) still tells the host it was aborted;
      // an abort once the run ended (from an agent_end listener) does not, as in pi.
      const aborted = run.abortedAtEnd ?? abortController.signal.aborted;
      if (aborted && this._state.errorMessage === undefined) {
        this._state.errorMessage = ABORTED_ERROR_MESSAGE;
      }
      // A run that failed (e.g. a listener threw, behaviour L9) may leave a request
      // streaming or other calls of a parallel batch executing: abort them, so
      // no work of this run outlives it.
      const last = this._state.messages[this._state.messages.length - 1];
      if (last?.role === "assistant" && (last.stopReason === "error" || last.stopReason === "aborted")) {
        abortController.abort();
      }
      this._state.isStreaming = false;
      this._state.streamingMessage = undefined;
      this._state.clearPendingToolCalls();
      this.activeRun = undefined;
      resolveRun();
    }
  }

  /**
   * Hands an event to the state, then to the listeners (see
   * {@link deliverToListeners}: in order, each awaited before the next, no
   * promise while every listener answers at once). A listener that throws
   * fails the run, except on `agent_end`: a run that has already ended
   * cannot fail, so its error becomes `state.errorMessage`.
   */
  private deliver(event: AgentEvent): Promise<void> | void {
    let delivered: Promise<void> | void;
    try {
      applyEventToState(this._state, event);
      const run = this.activeRun;
      if (!run) throw new Error("Agent listener invoked outside active run");
      if (event.type === "agent_end") run.abortedAtEnd = run.abortController.signal.aborted;
      delivered = deliverToListeners(this.listeners, event, run.abortController.signal);
    } catch (error) {
      return this.listenerFailed(event, error);
    }
    return delivered?.then(undefined, (error: unknown) => this.listenerFailed(event, error));
  }

  /** A listener threw: the run fails, except on `agent_end` (see {@link deliver}). */
  private listenerFailed(event: AgentEvent, error: unknown): void {
    if (event.type !== "agent_end") throw error;
    this._state.errorMessage = errorText(error);
  }
}
