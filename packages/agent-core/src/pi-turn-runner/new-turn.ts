import type { Agent, AgentMessage, AgentTool } from "@turnkit/agent-loop";
import { type ActionRequestOutcome, waitForActionAnswer } from "../action-requests.js";
import { errorText } from "@turnkit/agent-loop/internal";
import { type ActionRequiredPayload, ErrorCode, type RuntimeWarningPayload, type TurnError } from "@turnkit/protocol";
import { AbortGrace } from "../aborts.js";
import type { BashEnvSpawnHookOptions } from "../bash-env.js";
import type { StreamFn } from "../call-stack/stream-fn.js";
import { SerialEventQueue, type WriterFailureListener } from "../event-bridge/serial-event-queue.js";
import { type NewToolsOptions, newTools } from "../tools/new-tools.js";
import { ConfigErrorCode } from "../errors.js";
import { checkReadable } from "../input-reading.js";
import type { TurnWatch, WarningSink } from "../turn-watch/turn-watch.js";
import { bindSubAgentTools } from "../sub-agents/run-sub-agent.js";
import type { TurnNesting } from "../sub-agents/turn-nesting.js";
import type { HistoryCursor } from "./history-cursor.js";
import { emitWarning, newTurnWatch } from "./turn-watching.js";
import type { RunTurnInput } from "./run-turn-input.js";
import type { RunnerDefaults } from "./runner-defaults.js";
import { auxiliaryCallStack, mainCallStack } from "./turn-call-stack.js";
import { TurnEventBridge } from "./agent-events.js";
import { failTurn } from "./turn-failure.js";
import type { PiTurnHooks } from "./turn-hooks.js";
import type { LlmDirective, TurnState } from "./turn-state.js";

/**
 * Step 1 of a turn: its state, with the serial event queue to the host's
 * writer, the EventBridge, the tool table and the call stack (for the
 * loop's requests and, with its own retry budget, for hooks' requests).
 * `nesting` says where the turn stands among sub-agents. Emits nothing.
 * Throws a `TurnkitConfigError` for invalid tools, before any event.
 */
export function newTurn(input: RunTurnInput, defaults: RunnerDefaults, nesting: TurnNesting): TurnState {
  return new Turn(input, defaults, nesting);
}

/**
 * One turn's state. Its parts call back into it through its methods (the
 * writer failed, a warning, a tool call settled).
 */
class Turn implements TurnState, WriterFailureListener, WarningSink, NewToolsOptions {
  readonly input: RunTurnInput;
  readonly defaults: RunnerDefaults;
  readonly startedAt: number;
  readonly nesting: TurnNesting;
  /** The prefix of the ids of what the turn's tools ask the host: its sub-agent calls. */
  readonly requestIdScope: string;
  readonly hooks: PiTurnHooks;
  readonly events: SerialEventQueue;
  readonly bridge: TurnEventBridge;
  tools: AgentTool<any>[] | undefined;
  readonly mainCallStack: StreamFn;
  /** The hooks' call stack, built at their first request (most turns make none). */
  private auxiliaryCalls: StreamFn | undefined = undefined;
  readonly abortGrace = new AbortGrace();
  readonly watch: TurnWatch;
  agent: Agent | undefined = undefined;
  cursor: HistoryCursor | undefined = undefined;
  undelivered: Set<AgentMessage> | undefined = undefined;
  settled = false;
  historyHooksCutAt: number | undefined = undefined;
  failure: TurnError | undefined = undefined;
  stopRequested = false;
  closed = false;
  cancelledBeforeStart = false;
  requestIndex = -1;
  stepIndex = -1;
  afterLlmRetries = 0;
  messageIds = new Set<string>();
  nextDirective: LlmDirective | undefined = undefined;
  loopMessages: AgentMessage[] | undefined = undefined;
  hookMessageCopies: WeakMap<AgentMessage, AgentMessage> | undefined = undefined;
  terminatingCalls: Set<string> | undefined = undefined;
  terminateAgentRequested = false;

  constructor(input: RunTurnInput, defaults: RunnerDefaults, nesting: TurnNesting) {
    this.input = input;
    this.defaults = defaults;
    this.nesting = nesting;
    this.requestIdScope = nesting.requestIdScope;
    this.startedAt = defaults.clock.now();
    this.hooks = input.hooks ?? {};
    this.events = new SerialEventQueue(
      input.eventWriter,
      {
        sessionId: input.sessionId,
        turnId: input.turnId,
        newEventId: defaults.newEventId,
        checkRepeats: defaults.hostEventIds,
      },
      this,
      input.hookTimeoutMs === undefined ? undefined : { ms: input.hookTimeoutMs, clock: defaults.clock },
    );
    this.bridge = new TurnEventBridge(this);
    // The turn is the tool table's options: its ids, and its callbacks as methods. A tool that cannot be
    // read now (a host getter that throws on this later read) is still refused before any event, typed.
    this.tools = checkReadable("RunTurnInput.tools", ConfigErrorCode.InvalidTool, () =>
      newTools(bindSubAgentTools(input.tools ?? [], this), this),
    );
    // Built now, so a bad llm config throws before any event.
    this.mainCallStack = mainCallStack(this);
    this.watch = newTurnWatch(this);
  }

  get auxiliaryStreamFn(): StreamFn {
    this.auxiliaryCalls ??= auxiliaryCallStack(this);
    return this.auxiliaryCalls;
  }

  /** The host's `newEventId` failed (the queue's own ids stand in): the turn fails as the host's fault. */
  eventIdsFailed(problem: string): void {
    failTurn(this, { code: ErrorCode.Internal, message: `The host callback newEventId ${problem}` }, true);
  }

  /** The host's writer failed: the turn fails as the host's fault. */
  writerFailed(error: unknown): void {
    failTurn(this, { code: ErrorCode.Internal, message: `The event writer failed: ${errorText(error)}` }, true);
  }

  /** The writer did not answer within `hookTimeoutMs`: the turn fails as the host's fault, and its events stop waiting for it. */
  writerTimedOut(limitMs: number): void {
    failTurn(
      this,
      {
        code: ErrorCode.Internal,
        message: `The event writer did not answer within ${limitMs} ms (RunTurnInput.hookTimeoutMs)`,
      },
      true,
    );
  }

  /** A warning of the turn's watch, emitted in order with the turn's other events (nothing once the turn settled). */
  warn(warning: RuntimeWarningPayload): void {
    emitWarning(this, warning);
  }

  // ------------------------------------------------ the tool table's options

  get sessionId(): string {
    return this.input.sessionId;
  }

  get turnId(): string {
    return this.input.turnId;
  }

  get workspaceDir(): string | undefined {
    return this.input.workspaceDir ?? this.defaults.workspaceDir;
  }

  get disableBuiltinToolFallback(): boolean | undefined {
    return this.input.disableBuiltinToolFallback;
  }

  get bashEnv(): BashEnvSpawnHookOptions | undefined {
    return this.defaults.bashEnv;
  }

  resolveAssistantMessageId(toolCallId: string): string | undefined {
    return this.bridge.assistantMessageIdFor(toolCallId);
  }

  waitForActionAnswer(request: ActionRequiredPayload, signal: AbortSignal): Promise<ActionRequestOutcome> {
    return waitForActionAnswer(this, request, signal);
  }

  onExecuteSettled(toolCallId: string): void {
    this.watch.toolSettled(toolCallId);
  }

  onLateUpdate(toolCallId: string, toolName: string): void {
    emitWarning(this, {
      code: "late_tool_update",
      message: `${toolName} sent an update after its result; it was dropped`,
      toolCallId,
      toolName,
    });
  }
}
