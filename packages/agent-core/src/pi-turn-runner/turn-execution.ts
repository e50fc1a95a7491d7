import type { AssistantMessage, Context, Model, ToolResultMessage } from "@mariozechner/pi-ai";
import {
  ABANDONED,
  ABORT_GRACE_MS,
  Agent,
  type AgentEvent,
  type AgentMessage,
  type AfterToolCallContext,
  type AfterToolCallResult,
  type BeforeToolCallContext,
  type BeforeToolCallResult,
  type ToolExecutionStartContext,
  ToolResultText,
  errorText,
  settleOrAbandon,
} from "@turnkit/agent-loop";
import { ErrorCode, type TurnError, type TurnOutcome } from "@turnkit/protocol";
import { classifyError, getAttachedClassifiedError } from "../call-stack/classify-error.js";
import { composeStreamFn } from "../call-stack/compose-stream-fn.js";
import { AFTER_LLM_HOOK_MAX_RETRIES } from "../defaults.js";
import { EventBridge } from "../event-bridge/event-bridge.js";
import { HistoryCursor } from "./history-cursor.js";
import type { LlmRetryNotification } from "../call-stack/llm-config.js";
import { withLlmRetry } from "../call-stack/llm-retry.js";
import { newTools } from "../tools/new-tools.js";
import { createOverflowRecoveryState, withOverflowRecovery } from "../call-stack/overflow-recovery.js";
import type { RunnerDefaults } from "./pi-turn-runner.js";
import { projectAgentMessagesForModel } from "../messages/project-messages.js";
import type { RunTurnInput, TurnInputMessage } from "./run-turn-input.js";
import { SerialEventQueue } from "../event-bridge/serial-event-queue.js";
import type { StreamFn } from "../call-stack/stream-fn.js";
import { withStreamTimeouts } from "../call-stack/stream-timeouts.js";
import { syntheticResponse } from "../call-stack/synthetic-response.js";
import {
  type AfterLlmCallDecision,
  type BeforeLlmCallDecision,
  type HistoryChange,
  type LlmCallReason,
  type PiTurnHooks,
  type ToolCallHookEvent,
  hookArray,
} from "./turn-hooks.js";
import { createHiddenMessage, createUserMessage, isDroppedResponse, markDroppedResponse } from "../messages/turn-messages.js";

/** How many times the runner re-polls after `tryBeginClose` refused without new work. */
const MAX_CLOSE_ATTEMPTS = 64;

type Directive = { kind: "respond"; text: string } | { kind: "skip" };

/** A failure that decides the turn's outcome, recorded once (the first wins). */
class TurnFailure extends Error {
  constructor(readonly turnError: TurnError) {
    super(turnError.message);
    this.name = "TurnFailure";
  }
}

/**
 * Awaits what a hook returned, but once `signal` fired gives up after the
 * loop's grace period: the loop awaits these hooks without a bound, so a hook
 * that ignores the abort would otherwise hold the turn open forever (X3).
 */
function settleHook<T>(result: T | Promise<T>, signal: AbortSignal | undefined): T | Promise<T | typeof ABANDONED> {
  if (!result || typeof (result as Promise<T>).then !== "function") return result as T;
  return settleOrAbandon(Promise.resolve(result), signal, ABORT_GRACE_MS);
}

/** Thrown when a hook was given up on after an abort; the loop then records an aborted response. */
class HookAbandonedError extends Error {
  constructor(hookName: string) {
    super(`${hookName} did not return after the turn was aborted`);
    this.name = "HookAbandonedError";
  }
}

function isErrorOrAborted(message: AgentMessage | undefined): boolean {
  return message?.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted");
}

function hasToolCalls(message: AssistantMessage): boolean {
  return message.content.some((block) => block.type === "toolCall");
}

/** Options of a request as a hook may see them: no credentials, signal or functions. */
function publicOptions(options: Record<string, unknown> | undefined): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if (key === "apiKey" || key === "signal" || key === "headers" || typeof value === "function") continue;
    visible[key] = value;
  }
  return visible;
}

/**
 * One `runTurn` (SPEC T2): the eight steps, the serial event queue, the
 * history cursor, hooks, steering at step end and convergence at idle.
 * Created per turn and discarded afterwards.
 */
export class TurnExecution {
  private readonly hooks: PiTurnHooks;
  private readonly events: SerialEventQueue;
  private readonly bridge: EventBridge;
  private readonly agent: Agent;
  private readonly cursor: HistoryCursor;
  private readonly auxiliaryStreamFn: StreamFn;

  private failure: TurnError | undefined;
  /** Set when the turn must end after the current step (a hook failed it, the host stopped it). */
  private stopRequested = false;
  /** Set once `tryBeginClose` succeeded. */
  private closed = false;
  private requestIndex = -1;
  private stepIndex = -1;
  private afterLlmRetries = 0;
  private nextDirective: Directive | undefined;
  /** The loop's live context array, captured at each request (for persistent replacements). */
  private loopMessages: AgentMessage[] | undefined;
  /** Calls of the current step whose final result has `terminate`, and whether a hook asked `terminateAgent` (L6d). */
  private readonly terminatingCalls = new Set<string>();
  private terminateAgentRequested = false;

  constructor(
    private readonly input: RunTurnInput,
    private readonly defaults: RunnerDefaults,
  ) {
    this.hooks = input.hooks ?? {};
    // (1) newTurn: event queue, bridge, tool table, stream function.
    this.events = new SerialEventQueue(
      input.eventWriter,
      { sessionId: input.sessionId, turnId: input.turnId, newEventId: defaults.newEventId },
      (error) => this.fail({ code: ErrorCode.Internal, message: `The event writer failed: ${errorText(error)}` }, true),
    );
    this.bridge = new EventBridge(
      (type, payload) => this.events.push(type, payload),
      async () => {
        try {
          return await defaults.allocateMessageId({ sessionId: input.sessionId, turnId: input.turnId });
        } catch (error) {
          // The host's allocator failed: the turn fails as the host's fault, not the provider's.
          this.fail({ code: ErrorCode.Internal, message: `allocateMessageId failed: ${errorText(error)}` });
          throw error;
        }
      },
      () => defaults.clock.now(),
    );
    const tools = newTools(input.tools ?? [], {
      sessionId: input.sessionId,
      turnId: input.turnId,
      resolveAssistantMessageId: (toolCallId) => this.bridge.assistantMessageIdFor(toolCallId),
      workspaceDir: input.workspaceDir ?? defaults.workspaceDir,
      disableBuiltinToolFallback: input.disableBuiltinToolFallback,
      bashEnv: defaults.bashEnv,
    });
    const streamFn = this.buildStreamFn();
    this.auxiliaryStreamFn = this.buildAuxiliaryStreamFn();

    // (3) newAgent, (4) hooks.
    const history = input.history ?? [];
    this.cursor = new HistoryCursor(history.length, isDroppedResponse);
    this.agent = new Agent({
      initialState: {
        systemPrompt: input.systemPrompt,
        model: input.llm.model,
        thinkingLevel: input.llm.thinkingLevel ?? "off",
        tools,
        messages: history,
      },
      convertToLlm: (messages) => projectAgentMessagesForModel(messages),
      transformContext: (messages, signal) => this.beforeLlmCall(messages, signal, "request"),
      streamFn,
      getApiKey: (provider) => (provider === input.llm.model.provider ? input.llm.apiKey : undefined),
      onPayload: input.llm.payloadTransform,
      onResponse: input.llm.responseObserver,
      sessionId: input.sessionId,
      toolExecution: "parallel",
      beforeToolCall: (context, signal) => this.beforeToolCall(context, signal),
      afterToolCall: (context, signal) => this.afterToolCall(context, signal),
      onToolExecutionStart: (context, signal) => this.onToolExecutionStart(context, signal),
      shouldStopAfterTurn: async (context) =>
        this.stopRequested || (input.shouldStopAfterTurn ? (await this.settleHostCallback(input.shouldStopAfterTurn(context), true)) === true : false),
      shouldStopAfterSteering: input.shouldStopAfterSteering
        ? async (context) => {
            const stop = (await this.settleHostCallback(input.shouldStopAfterSteering!({ steeringMessages: context.steeringMessages }), true)) === true;
            if (stop) this.stopRequested = true;
            return stop;
          }
        : undefined,
    });
  }

  /** Runs the turn to its single outcome. Never rejects. */
  async run(): Promise<TurnOutcome> {
    const started = this.defaults.clock.now();
    const signal = this.input.signal;
    // (2) running.
    this.events.push("session.status", { status: "running" });
    // (6) already cancelled: running, then aborted.
    if (signal?.aborted) return this.finish();

    // (5) one serial path for every Agent event.
    const unsubscribe = this.agent.subscribe((event) => this.onAgentEvent(event));
    const onAbort = () => this.agent.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      // (7) run, then converge; not at all when the turn already failed (a writer that threw at `running`).
      if (!this.failure) await this.runAgent();
    } catch (error) {
      this.fail({ code: ErrorCode.Internal, message: `The turn failed unexpectedly: ${errorText(error)}` });
    } finally {
      signal?.removeEventListener("abort", onAbort);
      unsubscribe();
    }
    const outcome = await this.finish();
    this.metric("turn.duration_ms", this.defaults.clock.now() - started, { outcome: outcome.kind });
    return outcome;
  }

  // ------------------------------------------------------------------ steps 7, 8

  private async runAgent(): Promise<void> {
    const { input, agent } = this;
    const prompts: AgentMessage[] = [...(input.beforeUserMessages ?? [])];
    if (input.startMode !== "continue" && input.userMessage) {
      const { text, images, batchId } = input.userMessage;
      prompts.push(createUserMessage(text, { images, batchId }));
    }
    if (prompts.length > 0) await agent.prompt(prompts);
    else await agent.continue();
    await this.convergeAtIdle();
  }

  /** SPEC T7: after the Agent is idle, run steering that appeared, until closing succeeds. */
  private async convergeAtIdle(): Promise<void> {
    const { agent, input } = this;
    for (let attempt = 0; attempt < MAX_CLOSE_ATTEMPTS; attempt++) {
      if (this.stopRequested || this.failure || input.signal?.aborted) return;
      const last = agent.state.messages[agent.state.messages.length - 1];
      if (isErrorOrAborted(last)) return;
      if (agent.hasQueuedMessages()) {
        await agent.continue();
        continue;
      }
      if (this.closed || !input.tryBeginClose) return;
      // Steering that arrived is queued now; the loop top checks abort and failure again before
      // continuing: an abort during the poll hit an idle agent, so it would not stop the next run.
      if ((await this.pollSteering("exit")) > 0) continue;
      if ((await this.settleHostCallback(input.tryBeginClose({ lastAssistantMessage: last }), false)) === true) {
        this.closed = true;
        return;
      }
    }
    this.bridge.trace("turn", "warn", "tryBeginClose kept refusing without new work; the turn ends");
  }

  /** Step 8: drain, flush history and held messages, emit the terminal status. */
  private async finish(): Promise<TurnOutcome> {
    try {
      await this.deliverHistory();
    } catch {
      // Recorded as the turn's failure by deliverHistory.
    }
    this.bridge.flush();
    const outcome = this.decideOutcome();
    this.events.push(
      "session.status",
      outcome.kind === "failed" ? { status: "failed", error: outcome.error } : { status: outcome.kind },
    );
    // A writer that never returns holds up the queue; once the caller aborts, it is
    // given up on and still handed the terminal status (X3).
    if ((await this.events.drain(this.input.signal, ABORT_GRACE_MS)) === "abandoned") this.events.abandon();
    return outcome;
  }

  private decideOutcome(): TurnOutcome {
    if (this.input.signal?.aborted) return { kind: "aborted" };
    if (this.failure) return { kind: "failed", message: this.failure.message, error: this.failure };
    const messages = this.agent.state.messages;
    const last = messages[messages.length - 1];
    if (last?.role === "assistant" && last.stopReason === "error") {
      const classified = getAttachedClassifiedError(last) ?? classifyError(last);
      const error = { code: classified.code, message: classified.message };
      return { kind: "failed", message: error.message, error };
    }
    if (last?.role === "assistant" && last.stopReason === "aborted") return { kind: "aborted" };
    return { kind: "completed" };
  }

  /** Records the first failure of the turn; with `abort`, stops the agent too. */
  private fail(error: TurnError, abort = false): void {
    if (!this.failure) {
      this.failure = error;
      this.bridge.trace("turn", "error", error.message, { code: error.code });
      this.defaults.logger.error?.(error.message, { code: error.code, turnId: this.input.turnId });
    }
    this.stopRequested = true;
    if (abort) this.agent?.abort();
  }

  private metric(name: string, value: number, attrs: Record<string, string>): void {
    try {
      this.defaults.metrics?.({ name, value, attrs: { sessionId: this.input.sessionId, ...attrs } });
    } catch {
      // Metrics never affect a turn.
    }
  }

  // ------------------------------------------------------------------ stream function

  /** The composed call stack with its own retry wrapper: one per request family (W3). */
  private retriedStreamFn(label: "main" | "auxiliary"): StreamFn {
    const { input, defaults } = this;
    const timed = withStreamTimeouts(composeStreamFn(input.llm), {
      firstEventTimeoutMs: input.llm.firstEventTimeoutMs,
      streamIdleTimeoutMs: input.llm.streamIdleTimeoutMs,
      clock: defaults.clock,
    });
    const hostRetry = input.llmRetry;
    return withLlmRetry(timed, hostRetry === false ? false : { ...hostRetry, observer: (notice) => this.onRetryNotice(notice) }, {
      clock: defaults.clock,
      random: defaults.random,
      label,
    });
  }

  /** For hooks' own requests: the turn's API key and signal unless the call gives its own. */
  private buildAuxiliaryStreamFn(): StreamFn {
    const retried = this.retriedStreamFn("auxiliary");
    return (model, context, options) =>
      retried(model, context, { apiKey: this.input.llm.apiKey, ...options, signal: options?.signal ?? this.agent.signal });
  }

  private buildStreamFn(): StreamFn {
    const retried = this.retriedStreamFn("main");
    const recovered = withOverflowRecovery(retried, {
      state: createOverflowRecoveryState(),
      recover: ({ context, signal }) => this.recoverFromOverflow(context, signal),
    });
    return (model, context, options) => {
      const directive = this.nextDirective;
      this.nextDirective = undefined;
      if (directive) {
        return syntheticResponse(model, directive.kind === "respond" ? directive.text : "", (message) => {
          if (directive.kind === "skip") markDroppedResponse(message, "skip");
        });
      }
      this.notifyPrepared(model, context, options as Record<string, unknown> | undefined);
      this.metric("llm.requests", 1, { provider: model.provider });
      return recovered(model, context, options);
    };
  }

  private async onRetryNotice(notice: LlmRetryNotification): Promise<void> {
    const level = notice.type === "exhausted" ? "error" : notice.type === "waiting" ? "warn" : "info";
    const attrs: Record<string, unknown> = { ...notice };
    if ("error" in notice) attrs.error = { code: notice.error.code, message: notice.error.message, status: notice.error.status };
    this.bridge.trace("llm.retry", level, notice.type, attrs);
    const observer = this.input.llmRetry === false ? undefined : this.input.llmRetry?.observer;
    try {
      await observer?.(notice);
    } catch {
      // Observer errors are swallowed (W3).
    }
  }

  private notifyPrepared(model: Model<any>, context: Context, options: Record<string, unknown> | undefined): void {
    const hooks = hookArray(this.hooks.onLlmCallPreparedHook);
    if (hooks.length === 0) return;
    const event = {
      sessionId: this.input.sessionId,
      turnId: this.input.turnId,
      requestIndex: this.requestIndex,
      model,
      context,
      options: publicOptions(options),
    };
    for (const hook of hooks) {
      try {
        const result = hook(event);
        if (result && typeof (result as Promise<void>).then === "function") (result as Promise<void>).catch(() => undefined);
      } catch {
        // An observer; its failure never affects the call.
      }
    }
  }

  private async recoverFromOverflow(context: Context, signal: AbortSignal | undefined): Promise<Context | undefined> {
    const messages = this.loopMessages;
    if (!messages || hookArray(this.hooks.beforeLlmCallHook).length === 0) return undefined;
    const before = messages.length;
    const snapshot = [...messages];
    const projected = await this.beforeLlmCall(messages, signal, "overflow");
    const changed = messages.length !== before || messages.some((message, index) => message !== snapshot[index]);
    if (!changed && projected === messages) return undefined;
    this.bridge.trace("llm", "warn", "context overflow: resending once after recovery hooks");
    return { ...context, messages: projectAgentMessagesForModel(projected) };
  }

  // ------------------------------------------------------------------ before LLM (H, H1, W5)

  /**
   * The loop's `transformContext`: runs the before-LLM hooks in order.
   * Fails closed (H1): a throw, an invalid decision or a replacement that
   * cannot be persisted records a `hook` failure and throws, so the loop
   * records an error response and the model is never called.
   */
  private async beforeLlmCall(messages: AgentMessage[], signal: AbortSignal | undefined, reason: LlmCallReason): Promise<AgentMessage[]> {
    if (reason === "request") this.requestIndex++;
    this.loopMessages = messages;
    const hooks = hookArray(this.hooks.beforeLlmCallHook);
    let current: AgentMessage[] = messages;
    for (const hook of hooks) {
      let decision: BeforeLlmCallDecision | null | undefined | typeof ABANDONED;
      try {
        decision = await settleHook(
          hook({
            sessionId: this.input.sessionId,
            turnId: this.input.turnId,
            requestIndex: this.requestIndex,
            reason,
            messages: current,
            model: this.input.llm.model,
            auxiliaryStreamFn: this.auxiliaryStreamFn,
            signal: signal ?? new AbortController().signal,
          }),
          signal,
        );
      } catch (error) {
        throw this.hookFailure(`beforeLlmCallHook failed: ${errorText(error)}`);
      }
      if (decision === ABANDONED) throw new HookAbandonedError("beforeLlmCallHook");
      if (decision === null || decision === undefined) continue;
      switch (decision.type) {
        case "continue":
          continue;
        case "skip":
          this.nextDirective = { kind: "skip" };
          this.stopRequested = true;
          return current;
        case "respond":
          if (typeof decision.text !== "string") throw this.hookFailure("beforeLlmCallHook returned respond without text");
          this.nextDirective = { kind: "respond", text: decision.text };
          return current;
        case "replaceRequestMessages":
          if (!Array.isArray(decision.messages)) throw this.hookFailure("beforeLlmCallHook returned replaceRequestMessages without messages");
          current = decision.messages;
          continue;
        case "replaceMessages":
          if (!Array.isArray(decision.messages)) throw this.hookFailure("beforeLlmCallHook returned replaceMessages without messages");
          await this.replaceHistory(messages, decision.messages, decision.metadata);
          current = messages;
          continue;
        case "appendMessage": {
          if (typeof decision.message?.content !== "string" && !Array.isArray(decision.message?.content)) {
            throw this.hookFailure("beforeLlmCallHook returned appendMessage without content");
          }
          const hidden = createHiddenMessage(decision.message.content, decision.message.source);
          messages.push(hidden);
          this.agent.state.messages.push(hidden);
          if (current !== messages) current = [...current, hidden];
          continue;
        }
        case "abort":
          throw this.hookFailure(`beforeLlmCallHook aborted the model call: ${decision.reason ?? "no reason given"}`);
        default:
          throw this.hookFailure(`beforeLlmCallHook returned an invalid decision: ${JSON.stringify(decision)}`);
      }
    }
    return current;
  }

  private hookFailure(message: string): TurnFailure {
    const error = { code: ErrorCode.Hook, message };
    this.fail(error);
    return new TurnFailure(error);
  }

  /** A persistent replacement (compaction): loop context, transcript and host all switch to it. */
  private async replaceHistory(loopMessages: AgentMessage[], replacement: AgentMessage[], metadata?: Record<string, unknown>): Promise<void> {
    const previous = this.agent.state.messages.slice();
    loopMessages.splice(0, loopMessages.length, ...replacement);
    this.agent.state.messages = replacement;
    this.cursor.replace(previous, replacement, metadata);
    try {
      await this.deliverHistory();
    } catch (error) {
      throw this.hookFailure(`The replaced history could not be persisted: ${errorText(error)}`);
    }
  }

  // ------------------------------------------------------------------ Agent events (B, T4, T6, H)

  /**
   * The one Agent listener. Returns a promise only where the loop must wait
   * (id allocation, hooks, history delivery, steering), so streamed deltas
   * go straight to the writer.
   */
  private onAgentEvent(event: AgentEvent): Promise<void> | void {
    switch (event.type) {
      case "message_update":
      case "tool_execution_start":
      case "tool_execution_update":
      case "agent_start":
      case "turn_start":
        return this.bridge.handle(event);
      case "message_start":
        return this.bridge.handle(event);
      case "message_end":
        return this.onMessageEnd(event.message);
      // The bridge answers with a promise only while a message id is still being allocated;
      // then what follows must wait for it (and its failure must reach the loop).
      case "tool_execution_end": {
        const bridged = this.bridge.handle(event);
        return bridged ? bridged.then(() => this.deliverHistory()) : this.deliverHistory();
      }
      case "turn_end": {
        const bridged = this.bridge.handle(event);
        return bridged ? bridged.then(() => this.onStepEnd(event.message, event.toolResults)) : this.onStepEnd(event.message, event.toolResults);
      }
      case "agent_end":
        return this.bridge.handle(event);
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  }

  private async onMessageEnd(message: AgentMessage): Promise<void> {
    if (message.role === "assistant" && !isErrorOrAborted(message)) await this.afterLlmCall(message);
    await this.bridge.handle({ type: "message_end", message });
    await this.deliverHistory();
  }

  /** SPEC H afterLlmCallHook, X4: may rewrite, drop-and-retry or fail the response before its tools run. */
  private async afterLlmCall(message: AssistantMessage): Promise<void> {
    const hooks = hookArray(this.hooks.afterLlmCallHook);
    for (const hook of hooks) {
      let decision: AfterLlmCallDecision | null | undefined;
      try {
        decision = await hook({
          sessionId: this.input.sessionId,
          turnId: this.input.turnId,
          requestIndex: this.requestIndex,
          message,
          retriesUsed: this.afterLlmRetries,
          signal: this.agent.signal ?? new AbortController().signal,
        });
      } catch (error) {
        stripToolCalls(message);
        this.fail({ code: ErrorCode.Hook, message: `afterLlmCallHook failed: ${errorText(error)}` });
        return;
      }
      if (!decision) continue;
      switch (decision.type) {
        case "continue":
          continue;
        case "replaceText":
          replaceText(message, decision.text);
          continue;
        case "retry":
          if (this.afterLlmRetries >= AFTER_LLM_HOOK_MAX_RETRIES) {
            this.bridge.trace("llm", "warn", "afterLlmCallHook retry ignored: the per-turn budget is spent", {
              budget: AFTER_LLM_HOOK_MAX_RETRIES,
              reason: decision.reason,
            });
            continue;
          }
          this.afterLlmRetries++;
          stripToolCalls(message);
          markDroppedResponse(message, decision.reason);
          this.agent.followUp(createHiddenMessage(decision.prompt, "afterLlmCallHook"));
          this.bridge.trace("llm", "info", "afterLlmCallHook asked for a retry", { reason: decision.reason, attempt: this.afterLlmRetries });
          return;
        case "fail":
          stripToolCalls(message);
          this.fail({ code: ErrorCode.Hook, message: `afterLlmCallHook failed the turn: ${decision.reason}` });
          return;
        default:
          stripToolCalls(message);
          this.fail({ code: ErrorCode.Hook, message: `afterLlmCallHook returned an invalid decision: ${JSON.stringify(decision)}` });
          return;
      }
    }
  }

  /** T4: hands new history to the host, then announces it. A failure fails the turn. */
  private async deliverHistory(): Promise<void> {
    const changes = this.cursor.take(this.agent.state.messages);
    if (changes.length === 0) return;
    const hooks = hookArray(this.hooks.onHistoryChangedHook);
    for (const change of changes) {
      for (const hook of hooks) {
        try {
          await hook(change, { sessionId: this.input.sessionId, turnId: this.input.turnId });
        } catch (error) {
          // A host hook failed: code `hook` (ErrorCode), as for every other hook that fails a turn.
          this.fail({ code: ErrorCode.Hook, message: `onHistoryChangedHook failed; history was not persisted: ${errorText(error)}` }, true);
          throw error;
        }
      }
      this.events.push("message.persisted", persistedPayload(change));
    }
  }

  /** At each `turn_end`: the step-end hook, then steering with its boundary (T6). */
  private async onStepEnd(message: AgentMessage, toolResults: ToolResultMessage[]): Promise<void> {
    this.stepIndex++;
    if (message.role !== "assistant") return;
    await this.runStepEndHooks(message, toolResults);
    const batchTerminates = this.batchTerminates(toolResults);
    if (isErrorOrAborted(message) || this.stopRequested || this.closed) return;
    // A batch that terminates the agent is the last step unless steering arrives: that is the exit boundary.
    const moreSteps = toolResults.length > 0 && hasToolCalls(message) && !batchTerminates;
    for (let attempt = 0; attempt < MAX_CLOSE_ATTEMPTS; attempt++) {
      if (this.agent.signal?.aborted) return;
      const boundary = moreSteps || this.agent.hasQueuedMessages() ? "mid-turn" : "exit";
      const received = await this.pollSteering(boundary);
      if (received > 0 || moreSteps || this.agent.hasQueuedMessages()) return;
      if (!this.input.tryBeginClose) return;
      if ((await this.settleHostCallback(this.input.tryBeginClose({ lastAssistantMessage: message }), false)) === true) {
        this.closed = true;
        return;
      }
    }
  }

  /** Whether the loop sends no request for this step's results (L6d), as the loop decides it; resets for the next step. */
  private batchTerminates(toolResults: ToolResultMessage[]): boolean {
    const terminates =
      this.terminateAgentRequested ||
      (toolResults.length > 0 && toolResults.every((result) => this.terminatingCalls.has(result.toolCallId)));
    this.terminateAgentRequested = false;
    this.terminatingCalls.clear();
    return terminates;
  }

  private async runStepEndHooks(message: AssistantMessage, toolResults: ToolResultMessage[]): Promise<void> {
    const hooks = hookArray(this.hooks.onStepEndHook);
    for (const hook of hooks) {
      try {
        await hook({
          sessionId: this.input.sessionId,
          turnId: this.input.turnId,
          stepIndex: this.stepIndex,
          message,
          toolResults,
          enqueue: (queued) => this.agent.steer(typeof queued === "string" ? createUserMessage(queued) : queued),
          signal: this.agent.signal ?? new AbortController().signal,
        });
      } catch (error) {
        this.bridge.trace("step", "error", `onStepEndHook failed: ${errorText(error)}`, { stepIndex: this.stepIndex });
      }
    }
  }

  /** Polls the host once and queues what arrived; messages of one batch go in by `steerBatch`. */
  private async pollSteering(boundary: "mid-turn" | "exit"): Promise<number> {
    const poll = this.input.getSteeringMessages;
    if (!poll) return 0;
    const received: TurnInputMessage[] = (await this.settleHostCallback(poll({ boundary }), [])) ?? [];
    // Groups in arrival order (a batch sits where its first message arrived), so a message
    // without a batch id is never moved ahead of a batch that came before it.
    const groups: { batched: boolean; messages: AgentMessage[] }[] = [];
    const batches = new Map<string, AgentMessage[]>();
    for (const item of received) {
      const message = createUserMessage(item.text, { images: item.images, batchId: item.batchId });
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
      if (group.batched) this.agent.steerBatch(group.messages);
      else this.agent.steer(group.messages[0]!);
    }
    if (received.length > 0) this.bridge.trace("steering", "info", "steering received", { boundary, count: received.length });
    return received.length;
  }

  /**
   * Awaits a host callback of the input (steering poll, close, stop checks),
   * bounded like hooks: after an abort it gives up after the grace period and
   * answers `fallback`. Uses the running Agent's signal, else the caller's
   * (at idle, between runs).
   */
  private async settleHostCallback<T>(result: T | Promise<T>, fallback: T): Promise<T> {
    const settled = await settleHook(result, this.agent.signal ?? this.input.signal);
    return settled === ABANDONED ? fallback : settled;
  }

  // ------------------------------------------------------------------ tool hooks (H, X6)

  private toolEvent(context: { assistantMessage: AssistantMessage; toolCall: ToolCallHookEvent["toolCall"]; args: unknown }): ToolCallHookEvent {
    return {
      sessionId: this.input.sessionId,
      turnId: this.input.turnId,
      toolCall: context.toolCall,
      args: context.args,
      assistantMessage: context.assistantMessage,
      assistantMessageId: this.bridge.assistantMessageIdFor(context.toolCall.id),
    };
  }

  private async beforeToolCall(context: BeforeToolCallContext, signal: AbortSignal | undefined): Promise<BeforeToolCallResult | undefined> {
    const hooks = hookArray(this.hooks.beforeToolCallHook);
    if (hooks.length === 0) return undefined;
    const event = this.toolEvent(context);
    for (const hook of hooks) {
      try {
        const decision = await settleHook(hook(event, signal ?? new AbortController().signal), signal);
        if (decision === ABANDONED) return { block: true, reason: ToolResultText.aborted };
        if (decision?.block) {
          this.bridge.trace("tool", "info", "tool call blocked", {
            toolCallId: context.toolCall.id,
            toolName: context.toolCall.name,
            reason: decision.reason,
            blockedBy: decision.blockedBy,
          });
          // The blocked result's details say who blocked it, so history and the stream show a permission refusal as such.
          return { block: true, reason: decision.reason, details: decision.blockedBy ? { blockedBy: decision.blockedBy } : {} };
        }
      } catch (error) {
        const reason = `Tool call blocked: beforeToolCallHook failed: ${errorText(error)}`;
        this.bridge.trace("tool", "error", reason, { toolCallId: context.toolCall.id, toolName: context.toolCall.name });
        return { block: true, reason };
      }
    }
    return undefined;
  }

  private async onToolExecutionStart(context: ToolExecutionStartContext, signal: AbortSignal | undefined): Promise<void> {
    this.bridge.toolAdmitted(context.toolCall.id);
    const hooks = hookArray(this.hooks.onToolExecutionStartHook);
    if (hooks.length === 0) return;
    const event = this.toolEvent(context);
    for (const hook of hooks) {
      try {
        if ((await settleHook(hook(event, signal ?? new AbortController().signal), signal)) === ABANDONED) return;
      } catch {
        // An observer; its failure never affects the call.
      }
    }
  }

  private async afterToolCall(context: AfterToolCallContext, signal: AbortSignal | undefined): Promise<AfterToolCallResult | undefined> {
    const hooks = hookArray(this.hooks.afterToolCallHook);
    if (hooks.length === 0) {
      if (context.result.terminate === true) this.terminatingCalls.add(context.toolCall.id);
      return undefined;
    }
    let { result, isError } = context;
    let terminateAgent = false;
    for (const hook of hooks) {
      try {
        const patch = await settleHook(hook({ ...this.toolEvent(context), result, isError }, signal ?? new AbortController().signal), signal);
        if (patch === ABANDONED) {
          result = { content: [{ type: "text", text: ToolResultText.aborted }], details: result.details };
          isError = true;
          break;
        }
        if (!patch) continue;
        result = {
          content: patch.content ?? result.content,
          details: "details" in patch ? patch.details : result.details,
          terminate: patch.terminate ?? result.terminate,
        };
        if (patch.isError !== undefined) isError = patch.isError;
        if (patch.terminateAgent) terminateAgent = true;
      } catch (error) {
        result = { content: [{ type: "text", text: `afterToolCallHook failed: ${errorText(error)}` }], details: result.details };
        isError = true;
      }
    }
    if (result.terminate === true) this.terminatingCalls.add(context.toolCall.id);
    if (terminateAgent) this.terminateAgentRequested = true;
    // `false`, not `undefined`: the loop would fall back to the unpatched result's flag.
    return { content: result.content, details: result.details, isError, terminate: result.terminate === true, terminateAgent };
  }
}

function stripToolCalls(message: AssistantMessage): void {
  if (!hasToolCalls(message)) return;
  message.content = message.content.filter((block) => block.type !== "toolCall");
  if (message.stopReason === "toolUse") message.stopReason = "stop";
}

function replaceText(message: AssistantMessage, text: string): void {
  const first = message.content.findIndex((block) => block.type === "text");
  const kept: AssistantMessage["content"] = message.content.filter((block) => block.type !== "text");
  const at = first < 0 ? kept.length : first;
  kept.splice(at, 0, { type: "text", text });
  message.content = kept;
}

function persistedPayload(change: HistoryChange) {
  return { reason: change.reason, messages: change.messages as never };
}
