// Why this file is long: it is one exhaustive switch over every AgentEvent kind, with the runtime event each one becomes; split, the mapping loses its single place.
import type { AssistantMessage, AssistantMessageEvent, ToolCall } from "@mariozechner/pi-ai";
import type { AgentEvent } from "@turnkit/agent-loop";
import { assertFunctionArgument, isList, isRecord } from "@turnkit/agent-loop/internal";
import type {
  DebugTracePayload,
  ProtocolUsage,
  RuntimeEventPayloadMap,
  RuntimeEventType,
  StepReport,
  StreamChunk,
  StreamFailedChunk,
  StreamFinishedChunk,
  StreamToolCallChunk,
  TurnError,
} from "@turnkit/protocol";
import { classifyError } from "../call-stack/classify-error.js";
import { describeInlineMedia, withMediaDescribed } from "./media-descriptor.js";
import { jsonSafe } from "./json-safe.js";
import { objectArguments } from "../messages/tool-call-arguments.js";
import { distinctToolCallId } from "../messages/tool-call-ids.js";
import { isDroppedResponse } from "../messages/turn-messages.js";

/**
 * Host hook that names assistant messages. Called once per
 * assistant `message_start`; may be async. The bridge emits nothing for the
 * message before it has the id.
 */
export type MessageIdAllocator = (request: { sessionId: string; turnId: string }) => string | Promise<string>;

/** Where the bridge sends runtime payloads; the runner adds the envelope and `seq`. */
export type BridgeOutput = <TType extends RuntimeEventType>(
  type: TType,
  payload: RuntimeEventPayloadMap[TType],
) => void;

interface HeldCall {
  toolCall: ToolCall;
  /** The call's id as its chunks carry it: non-empty and distinct within its message (see `distinctToolCallId`). */
  id: string;
  /** The call's arguments as its chunks carry them: a JSON object (see `objectArguments`). */
  arguments: Record<string, unknown>;
  /** The message that made the call, and the call's place among its calls. */
  held: HeldMessage;
  index: number;
  startedAt: number | undefined;
  chunk: StreamToolCallChunk | undefined;
}

interface HeldMessage {
  /** The message's host id, and the index its next chunk gets. */
  id: string;
  chunkIndex: number;
  message: AssistantMessage;
  /** Its tool calls, in the model's order (never empty once held). */
  calls: readonly HeldCall[];
  remaining: number;
  /** The held message before it, if any. */
  older: HeldMessage | undefined;
}
const NO_CALLS: readonly HeldCall[] = Object.freeze([]);

/** The kinds of visible content a streaming message showed as chunks (bits of {@link EventBridge}'s record). */
const SHOWED_TEXT = 1;
const SHOWED_THINKING = 2;

function isToolCall(block: AssistantMessage["content"][number]): block is ToolCall {
  return block.type === "toolCall";
}

/**
 * Translates loop events into `RuntimeEvent` payloads.
 *
 * - Assistant `message_*` and `tool_execution_*` become `stream.resp` chunks
 *   of one host-assigned message id with a per-message chunk index: text and
 *   thinking deltas, tool-call status changes, and a `finish`. Each text or
 *   thinking block is shown once: by its deltas, else whole at its
 *   `text_end` / `thinking_end`, else (a kind the response showed nothing
 *   of while it streamed) at the response's end.
 * - A completed message with tool calls is held and released once, after
 *   its last `tool_execution_end`, with every call resolved (status, result,
 *   duration) in the model's call order, then its `finish`.
 * - An aborted message emits no `finish`; an error message's `finish`
 *   carries the classified error.
 * - Tool-call ids are non-empty and distinct within a message (an empty or
 *   repeated one becomes `<id>_<n>`, see `distinctToolCallId`).
 * - Tool-call arguments are always a JSON object: arguments the model sent
 *   that are not one are carried as `{ rawArguments: ... }`, and an object
 *   JSON cannot write as it is becomes its JSON-safe copy. So does a tool
 *   result (its `details` above all); plain JSON is never copied.
 * - Events never carry media bytes: a tool result's images (and any other
 *   block with inline `data`) become `ProtocolMediaDescriptor`s (MIME type,
 *   byte size, file name when known), in `stream.resp` results and in the
 *   partial results of `debug.trace`. The full data stays in the history.
 * - `agent_*`, `turn_*` and `tool_execution_update` become `debug.trace`.
 */
export class EventBridge {
  /** The streaming message's host id and the index its next chunk gets: fields rather than an object per message, read at every delta. */
  private currentId: string | undefined = undefined;
  private currentChunkIndex = 0;
  /** Ids the streaming message's announced tool calls go by, so each of its calls is announced under its own. */
  private currentCallIds: Set<string> | undefined = undefined;
  /**
   * Which kinds (text, thinking) the streaming message showed as chunks: a
   * kind it showed none of shows its final blocks at its end.
   */
  private currentShowedKinds = 0;
  /** The text block being streamed showed a delta: its `text_end` shows nothing more. */
  private textBlockStreamed = false;
  /** The thinking block being streamed showed a delta: its `thinking_end` shows nothing more. */
  private thinkingBlockStreamed = false;
  /**
   * The newest of the completed messages waiting for their calls to end,
   * each linked to the one held before it (rarely more than one): a chain
   * rather than a list, so a turn holding one message (many turns at once
   * each do, across their tool calls) holds no array for it.
   */
  private newestHeld: HeldMessage | undefined = undefined;
  /** The call found last while its message is held: calls start and end mostly in order, so the next one is looked at first. */
  private lastCall: HeldCall | undefined = undefined;
  /** Message ids of the calls of released messages, made at the first release (a turn's calls are held until then). */
  private releasedIds: Map<string, string> | undefined;
  /** Work (an id allocation and the events queued behind it) the next event must wait for. */
  private pendingWork: Promise<void> | undefined;

  /** Throws a `TypeError` naming the argument when `out`, `allocate` or `now` is no function. */
  constructor(
    private readonly out: BridgeOutput,
    private readonly allocate: () => string | Promise<string>,
    private readonly now: () => number,
  ) {
    assertFunctionArgument(out, "EventBridge", "out");
    assertFunctionArgument(allocate, "EventBridge", "allocate");
    assertFunctionArgument(now, "EventBridge", "now");
  }

  /** Sends one payload to `out`. A subclass may send it elsewhere instead (the turn runner's bridge writes to its turn's queue, without a callback per turn). */
  protected emit<TType extends RuntimeEventType>(type: TType, payload: RuntimeEventPayloadMap[TType]): void {
    this.out(type, payload);
  }

  /** The report the `finish` chunk being made carries, if any (asked once per such chunk). The turn runner's bridge reports the step it closes. */
  protected stepReport(): StepReport | undefined {
    return undefined;
  }

  /** Asks `allocate` for the next assistant message's id. A subclass may ask elsewhere instead. */
  protected allocateId(): string | Promise<string> {
    return this.allocate();
  }

  /** Host id of the assistant message that made a tool call, once that message ended; `undefined` before. */
  assistantMessageIdFor(toolCallId: string): string | undefined {
    return this.heldCall(toolCallId)?.held.id ?? this.releasedIds?.get(toolCallId);
  }

  /**
   * Handles one loop event. Returns a promise only for an assistant
   * `message_start` whose id allocation answers with a promise, and for
   * events that arrive while such an allocation is still pending: those are queued behind it, in order, so
   * nothing of a message is emitted (or lost) before its id is known.
   * Otherwise it returns nothing, so streamed deltas cost no microtask.
   */
  handle(event: AgentEvent): Promise<void> | void {
    if (this.pendingWork) return this.wait(this.pendingWork.then(() => this.handleNow(event)));
    const started = this.handleNow(event);
    return started ? this.wait(started) : undefined;
  }

  private wait(work: Promise<void>): Promise<void> {
    this.pendingWork = work;
    const settled = () => {
      if (this.pendingWork === work) this.pendingWork = undefined;
    };
    work.then(settled, settled);
    return work;
  }

  private handleNow(event: AgentEvent): Promise<void> | void {
    switch (event.type) {
      case "message_start":
        if (event.message.role === "assistant") return this.startMessage();
        return;
      case "message_update":
        this.update(event);
        return;
      case "message_end":
        if (event.message.role === "assistant") this.endMessage(event.message);
        return;
      case "tool_execution_start":
        // Not yet "started": the call is still being prepared (validation,
        // permission hooks). The runner reports admission via toolAdmitted().
        return;
      case "tool_execution_end":
        this.toolEnded(event.toolCallId, event.result, event.isError);
        return;
      case "tool_execution_update":
        this.trace("tool", "debug", "tool_execution_update", {
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          partialResult: withMediaDescribed(event.partialResult),
        });
        return;
      case "agent_start":
      case "turn_start":
        this.trace("loop", "debug", event.type);
        return;
      case "turn_end":
        this.trace("loop", "debug", "turn_end", {
          stopReason: event.message.role === "assistant" ? event.message.stopReason : undefined,
          toolResults: event.toolResults.length,
        });
        return;
      case "agent_end":
        this.trace("loop", "debug", "agent_end", { messages: event.messages.length });
        return;
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  }

  /** Emits a `debug.trace` payload; its `attrs` as a JSON-safe copy (they may hold what host code handed over). */
  trace(phase: string, level: DebugTracePayload["level"], message: string, attrs?: Record<string, unknown>): void {
    const payload: DebugTracePayload = { phase, level, message };
    if (attrs) payload.attrs = jsonSafe(attrs) as Record<string, unknown>;
    this.emit("debug.trace", payload);
  }

  /**
   * Releases every still-held message, resolving calls that never
   * ended as failed. Called once before the terminal status.
   */
  flush(): void {
    // Oldest first, as they were held.
    for (let held = this.oldestHeld(); held; held = this.oldestHeld()) {
      for (const call of held.calls) {
        if (!call.chunk) {
          call.chunk = this.callChunk(call, "failed", {
            content: [{ type: "text", text: "Tool call did not finish before the turn ended." }],
            isError: true,
          });
        }
      }
      this.release(held);
    }
  }

  private startMessage(): Promise<void> | void {
    const id = this.allocateId();
    if (typeof id === "string") return this.beginMessage(id);
    return id.then((allocated) => this.beginMessage(allocated));
  }

  private beginMessage(id: string): void {
    this.currentId = id;
    this.currentChunkIndex = 0;
    this.currentCallIds = undefined;
    this.currentShowedKinds = 0;
    this.textBlockStreamed = false;
    this.thinkingBlockStreamed = false;
  }

  /** The next chunk of the streaming message `id`. */
  private chunk(id: string, chunk: StreamChunk): void {
    this.emit("stream.resp", { messageId: id, chunkIndex: this.currentChunkIndex++, chunk });
  }

  /** The next chunk of a held message. */
  private heldChunk(held: HeldMessage, chunk: StreamChunk): void {
    this.emit("stream.resp", { messageId: held.id, chunkIndex: held.chunkIndex++, chunk });
  }

  private update(event: Extract<AgentEvent, { type: "message_update" }>): void {
    const id = this.currentId;
    if (id === undefined) return;
    const source = event.assistantMessageEvent;
    switch (source.type) {
      case "text_start":
        this.textBlockStreamed = false;
        return;
      case "text_delta":
        if (source.delta === "") return;
        this.textBlockStreamed = true;
        this.currentShowedKinds |= SHOWED_TEXT;
        this.chunk(id, { kind: "text", delta: source.delta });
        return;
      case "text_end":
        if (!this.textBlockStreamed) this.showWholeBlock(id, "text", source.content);
        this.textBlockStreamed = false;
        return;
      case "thinking_start":
        this.thinkingBlockStreamed = false;
        return;
      case "thinking_delta":
        if (source.delta === "") return;
        this.thinkingBlockStreamed = true;
        this.currentShowedKinds |= SHOWED_THINKING;
        this.chunk(id, { kind: "thinking", delta: source.delta });
        return;
      case "thinking_end":
        if (!this.thinkingBlockStreamed && !isRedactedThinking(source))
          this.showWholeBlock(id, "thinking", source.content);
        this.thinkingBlockStreamed = false;
        return;
      case "toolcall_end": {
        const taken = (this.currentCallIds ??= new Set());
        this.chunk(id, {
          kind: "tool_call",
          toolCallId: distinctToolCallId(source.toolCall.id, taken.size, taken),
          toolName: source.toolCall.name,
          status: "preparing",
          arguments: objectArguments(source.toolCall.arguments),
        });
        return;
      }
      default:
        return;
    }
  }

  private endMessage(message: AssistantMessage): void {
    const id = this.currentId;
    this.currentId = undefined;
    if (id === undefined) return;
    if (message.stopReason === "aborted") return;
    if (message.stopReason === "error") {
      const classified = classifyError(message);
      this.chunk(id, this.failedChunk(message.usage, { code: classified.code, message: classified.message }));
      return;
    }
    if (!isDroppedResponse(message)) this.showUnstreamedBlocks(id, message);
    const toolCalls = message.content.filter(isToolCall);
    if (toolCalls.length === 0) {
      this.chunk(id, this.finishedChunk(message.stopReason, message.usage));
      return;
    }
    const held: HeldMessage = {
      id,
      chunkIndex: this.currentChunkIndex,
      message,
      calls: NO_CALLS,
      remaining: toolCalls.length,
      older: this.newestHeld,
    };
    // Every field set here, so a call keeps them in the object itself as they are filled in.
    const taken = new Set<string>();
    held.calls = toolCalls.map((toolCall, index) => ({
      toolCall,
      id: distinctToolCallId(toolCall.id, index, taken),
      arguments: objectArguments(toolCall.arguments),
      held,
      index,
      startedAt: undefined,
      chunk: undefined,
    }));
    this.newestHeld = held;
  }

  /**
   * A block that came without deltas (a provider that sends a block's text
   * only at its `text_end` or `thinking_end`) shows its whole text as one
   * chunk at its end, in stream order, so each block is shown once whether
   * or not the blocks around it streamed. A redacted thinking block (its
   * text a provider's placeholder) shows nothing.
   */
  private showWholeBlock(id: string, kind: "text" | "thinking", content: unknown): void {
    if (typeof content !== "string" || content === "") return;
    this.currentShowedKinds |= kind === "text" ? SHOWED_TEXT : SHOWED_THINKING;
    this.chunk(id, { kind, delta: content });
  }

  /**
   * A response that showed nothing of a kind while it streamed (a stream
   * function that answers with one `done` event) shows its final blocks of
   * that kind as chunks at its end, so a host reading chunks does not show
   * it empty. A response a hook dropped shows nothing more.
   */
  private showUnstreamedBlocks(id: string, message: AssistantMessage): void {
    const showed = this.currentShowedKinds;
    if ((showed & (SHOWED_TEXT | SHOWED_THINKING)) === (SHOWED_TEXT | SHOWED_THINKING)) return;
    for (const block of message.content) {
      if (block.type === "text" && block.text !== "" && !(showed & SHOWED_TEXT))
        this.chunk(id, { kind: "text", delta: block.text });
      else if (block.type === "thinking" && block.thinking !== "" && !block.redacted && !(showed & SHOWED_THINKING))
        this.chunk(id, { kind: "thinking", delta: block.thinking });
    }
  }

  /**
   * The call `toolCallId` of the newest held message that made one;
   * `undefined` once its message was released. The call after the one found
   * last is looked at first, so a response's many calls are found in
   * constant time each when they come in order.
   */
  private heldCall(toolCallId: string): HeldCall | undefined {
    const last = this.lastCall;
    // Only while the last call's message is the newest held: an older one's call may be made again by a newer.
    if (last && last.held === this.newestHeld) {
      if (last.id === toolCallId) return last;
      const next = last.held.calls[last.index + 1];
      if (next?.id === toolCallId) return (this.lastCall = next);
    }
    for (let held = this.newestHeld; held; held = held.older) {
      for (const call of held.calls) if (call.id === toolCallId) return (this.lastCall = call);
    }
    return undefined;
  }

  /**
   * A call passed validation and every before-tool hook and is about to
   * execute: emits its `started` chunk and starts its duration. A call that
   * is blocked never gets one (it goes from `preparing` to `failed`).
   */
  toolAdmitted(toolCallId: string): void {
    const call = this.heldCall(toolCallId);
    if (!call) return;
    call.startedAt = this.now();
    this.heldChunk(call.held, {
      kind: "tool_call",
      toolCallId,
      toolName: call.toolCall.name,
      status: "started",
      arguments: call.arguments,
    });
  }

  private toolEnded(toolCallId: string, result: unknown, isError: boolean): void {
    const call = this.heldCall(toolCallId);
    if (!call || call.chunk) return;
    const { held } = call;
    const { content, details } = (result ?? {}) as { content?: unknown[]; details?: unknown };
    call.chunk = this.callChunk(call, isError ? "failed" : "finished", {
      content: describeInlineMedia(content),
      isError,
      details,
    });
    held.remaining--;
    if (held.remaining === 0) this.release(held);
  }

  private callChunk(
    call: HeldCall,
    status: "finished" | "failed",
    result: NonNullable<StreamToolCallChunk["result"]>,
  ): StreamToolCallChunk {
    const chunk: StreamToolCallChunk = {
      kind: "tool_call",
      toolCallId: call.id,
      toolName: call.toolCall.name,
      status,
      arguments: call.arguments,
      // What a tool returned (its details above all) may hold anything; a chunk carries plain JSON.
      result: jsonSafe(result) as NonNullable<StreamToolCallChunk["result"]>,
    };
    if (call.startedAt !== undefined) chunk.durationMs = Math.max(0, this.now() - call.startedAt);
    return chunk;
  }

  private release(held: HeldMessage): void {
    if (!this.unhold(held)) return;
    if (this.lastCall?.held === held) this.lastCall = undefined;
    const releasedIds = (this.releasedIds ??= new Map());
    for (const call of held.calls) releasedIds.set(call.id, held.id);
    for (const call of held.calls) if (call.chunk) this.heldChunk(held, call.chunk);
    this.heldChunk(held, this.finishedChunk(held.message.stopReason as "toolUse", held.message.usage));
  }

  /** The message held longest, if any. */
  private oldestHeld(): HeldMessage | undefined {
    let oldest = this.newestHeld;
    while (oldest?.older) oldest = oldest.older;
    return oldest;
  }

  /** Takes `held` out of the chain; false when it is not held (any more). */
  private unhold(held: HeldMessage): boolean {
    let newer: HeldMessage | undefined;
    for (let current = this.newestHeld; current !== held; newer = current, current = current.older)
      if (!current) return false;
    if (newer) newer.older = held.older;
    else this.newestHeld = held.older;
    return true;
  }

  /** A `finish` chunk, with the {@link stepReport} (if any) as its last field; made with every field at once, not copied to add it. */
  private finishedChunk(reason: StreamFinishedChunk["reason"], usage: ProtocolUsage): StreamFinishedChunk {
    const step = this.stepReport();
    return step ? { kind: "finish", reason, usage, step } : { kind: "finish", reason, usage };
  }

  /** The `finish` chunk of an error message, made as {@link finishedChunk} is. */
  private failedChunk(usage: ProtocolUsage, error: TurnError): StreamFailedChunk {
    const step = this.stepReport();
    return step
      ? { kind: "finish", reason: "error", usage, error, step }
      : { kind: "finish", reason: "error", usage, error };
  }
}

/** Whether the block a `thinking_end` closes is redacted: its text is a provider's placeholder, not the model's thinking. */
function isRedactedThinking(source: Extract<AssistantMessageEvent, { type: "thinking_end" }>): boolean {
  const content: unknown = isRecord(source.partial) ? source.partial.content : undefined;
  const block: unknown = isList(content) ? content[source.contentIndex] : undefined;
  return isRecord(block) && block.redacted === true;
}
