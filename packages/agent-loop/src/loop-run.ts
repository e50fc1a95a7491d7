import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { AbortGrace } from "./abort-grace.js";
import { RequestAbort } from "./request-abort.js";
import { onAbort } from "./shared-abort-listener.js";
import { ShownContent } from "./shown-content.js";
import { StepCalls } from "./step-calls.js";
import {
  ToolResultText,
  errorText,
  errorToolResult,
  failedAssistantMessage,
  toolResultMessage,
} from "./synthetic-messages.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  AgentToolCall,
  StreamFn,
} from "./types.js";

/**
 * The state of one loop invocation, shared by the step, response and tool
 * batch functions. `emit` records what has been opened and closed, so a
 * failure can close exactly what is still open (behaviour L9).
 */
export class LoopRun {
  readonly context: AgentContext;
  readonly newMessages: AgentMessage[];
  readonly config: AgentLoopConfig;
  readonly signal: AbortSignal | undefined;
  readonly streamFn: StreamFn | undefined;
  /** The abort of the run's model requests: their `options.signal`. */
  readonly requestAbort: RequestAbort;
  /** Bounds every wait of the run (a response read, a tool batch) once its signal fired; ended at `agent_end`. */
  readonly grace: AbortGrace;
  private readonly sink: AgentEventSink;
  /** Stops listening on the run's signal (its one shared listener: many runs may share a host's signal); called at `agent_end`. */
  private stopListening: (() => void) | undefined;

  /** Set when a failure started closing the run; later events are dropped. */
  private closed = false;
  private turnOpen = false;
  private agentEnded = false;
  /** The message between `message_start` and `message_end`; for a response, its latest partial. */
  private openMessage: AgentMessage | undefined;
  /** What of the open response the listeners were handed: a response ended early keeps only that. */
  private readonly shown = new ShownContent();
  /**
   * How many of `newMessages`, from the first, were announced with
   * `message_end` (the loop records and announces them in that order), and
   * the messages announced out of that order: a failure announces the rest.
   * Only read on failure.
   */
  private endedInOrder = 0;
  private endedOutOfOrder: AgentMessage[] | undefined;
  /** The latest completed assistant message with tool calls. */
  private stepAssistant: AssistantMessage | undefined;
  /** What happened to each of its calls. */
  private readonly stepCalls = new StepCalls();
  /** Tool results announced since the last `turn_start`: a failure's `turn_end` reports them all. */
  private turnToolResults: ToolResultMessage[] = [];

  constructor(
    context: AgentContext,
    newMessages: AgentMessage[],
    config: AgentLoopConfig,
    sink: AgentEventSink,
    signal: AbortSignal | undefined,
    streamFn: StreamFn | undefined,
  ) {
    this.context = context;
    this.newMessages = newMessages;
    this.config = config;
    this.sink = sink;
    this.signal = signal;
    this.streamFn = streamFn;
    this.requestAbort = new RequestAbort();
    this.grace = new AbortGrace();
    if (signal?.aborted) this.onRunAbort();
    else if (signal) this.stopListening = onAbort(signal, this.onRunAbort);
  }

  /** The run's signal fired: its requests abort with the run's reason, and its grace begins. */
  private readonly onRunAbort = (): void => {
    this.requestAbort.follow(this.signal!.reason);
    this.grace.begin();
  };

  /** True once the run's signal has fired. */
  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  /** Records the event, then hands it to the sink; returns what the sink returns, for the caller to await. */
  emit(event: AgentEvent): Promise<void> | void {
    if (this.closed) return;
    this.observe(event);
    return this.sink(event);
  }

  /** Appends a message to the model context and to the messages this run returns. */
  record(message: AgentMessage): void {
    this.context.messages.push(message);
    this.newMessages.push(message);
  }

  /**
   * Notes that the tool of a call of the current step was started, so a
   * failure that answers the call never says it was not executed.
   */
  markToolStarted(toolCallId: string): void {
    this.stepCalls.executed(toolCallId);
  }

  /** Emits `message_start` and `message_end` for a message that is complete on arrival. */
  async emitWholeMessage(message: AgentMessage): Promise<void> {
    await this.emit({ type: "message_start", message });
    await this.emit({ type: "message_end", message });
  }

  private observe(event: AgentEvent): void {
    switch (event.type) {
      case "turn_start":
        this.turnOpen = true;
        this.turnToolResults = [];
        break;
      case "turn_end":
        this.turnOpen = false;
        break;
      case "agent_end":
        this.agentEnded = true;
        // Nothing of the run listens on the run's signal any more.
        this.stopListening?.();
        this.grace.end();
        break;
      case "message_start":
        this.openMessage = event.message;
        if (event.message.role === "assistant") this.shown.reset();
        break;
      case "message_update":
        this.openMessage = event.message;
        this.shown.note(event.assistantMessageEvent);
        break;
      case "message_end": {
        this.openMessage = undefined;
        const message = event.message;
        if (this.newMessages[this.endedInOrder] === message) this.endedInOrder++;
        else (this.endedOutOfOrder ??= []).push(message);
        if (message.role === "assistant") {
          const hasCalls = message.content.some((block) => block.type === "toolCall");
          this.stepAssistant =
            hasCalls && message.stopReason !== "error" && message.stopReason !== "aborted" ? message : undefined;
          this.stepCalls.nextStep();
        } else if (message.role === "toolResult") {
          this.stepCalls.answered(message.toolCallId);
          this.turnToolResults.push(message);
        }
        break;
      }
      case "tool_execution_start":
        this.stepCalls.started(event.toolCallId);
        break;
      case "tool_execution_end":
        this.stepCalls.ended(event.toolCallId);
        break;
      case "agent_start":
      case "tool_execution_update":
        break;
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  }

  /**
   * The open response's `partial` as the listeners were shown it (see
   * {@link ShownContent}): what a response ended early keeps.
   */
  shownPart(partial: AssistantMessage): AssistantMessage {
    return this.shown.cut(partial);
  }

  /**
   * Ends the run after something threw (behaviour L9): closes the open message,
   * announces new messages not yet announced, answers every unanswered tool
   * call of the current step (execution events and result, so the
   * transcript stays replayable), records a
   * synthesised `error` (or `aborted`) assistant message, then `turn_end`
   * and `agent_end`. Sink failures here are swallowed: the run must end.
   */
  async closeAfterFailure(error: unknown): Promise<void> {
    if (this.agentEnded || this.closed) return;
    this.closed = true;
    const aborted = this.aborted;
    const emit = async (event: AgentEvent) => {
      try {
        this.observe(event);
        await this.sink(event);
      } catch {
        // The run is already failing; a listener that fails again changes nothing.
      }
    };

    const open = this.openMessage;
    let partial: AssistantMessage | undefined;
    if (open) {
      if (open.role === "assistant") {
        // A response was streaming: its partial becomes the failure message below.
        partial = open;
      } else {
        await emit({ type: "message_end", message: open });
        if (!this.newMessages.includes(open)) this.record(open);
      }
    }

    if (!this.turnOpen) await emit({ type: "turn_start" });

    // Prompts or steering recorded but never announced (a listener failed
    // before their turn came): announce them, so a transcript built from
    // `message_end` holds everything `agent_end` reports.
    const ended = new Set(this.endedOutOfOrder);
    for (let index = 0; index < this.endedInOrder; index++) ended.add(this.newMessages[index]!);
    for (const message of [...this.newMessages]) {
      if (ended.has(message) || message === partial) continue;
      await emit({ type: "message_start", message });
      await emit({ type: "message_end", message });
      ended.add(message);
    }

    const step = this.stepAssistant;
    if (step) {
      for (const block of step.content) {
        if (block.type !== "toolCall" || this.stepCalls.isAnswered(block.id)) continue;
        const call = block as AgentToolCall;
        const result = errorToolResult(this.unansweredCallText(call.id, aborted, error));
        // Every answered call also gets its execution events, as a skipped call does.
        if (!this.stepCalls.isStarted(call.id)) {
          await emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
        }
        if (this.stepCalls.isOpen(call.id)) {
          await emit({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result, isError: true });
        }
        const message = toolResultMessage(call, result, true);
        this.record(message);
        await emit({ type: "message_start", message });
        await emit({ type: "message_end", message });
      }
    }

    const failure = failedAssistantMessage(this.config.model, error, aborted, partial && this.shownPart(partial));
    if (partial) {
      // The open message may already be recorded (a failure message whose own
      // message_start failed): it is replaced, never kept next to its successor.
      replaceOrAppend(this.context.messages, partial, failure);
      replaceOrAppend(this.newMessages, partial, failure);
    } else {
      this.record(failure);
      await emit({ type: "message_start", message: failure });
    }
    await emit({ type: "message_end", message: failure });
    await emit({ type: "turn_end", message: failure, toolResults: [...this.turnToolResults] });
    await emit({ type: "agent_end", messages: this.newMessages });
  }

  /** The result text of a call a failure answers: whether its tool had started decides between "not executed" and "interrupted". */
  private unansweredCallText(toolCallId: string, aborted: boolean, error: unknown): string {
    if (this.stepCalls.wasExecuted(toolCallId))
      return aborted ? ToolResultText.interrupted : ToolResultText.runFailedAfterStart(errorText(error));
    return aborted ? ToolResultText.aborted : ToolResultText.runFailed(errorText(error));
  }
}

/** Replaces the last occurrence of `stale` in `messages` with `fresh`, or appends `fresh` when `stale` is not there. */
function replaceOrAppend(messages: AgentMessage[], stale: AgentMessage, fresh: AgentMessage): void {
  const index = messages.lastIndexOf(stale);
  if (index >= 0) messages[index] = fresh;
  else messages.push(fresh);
}
