// Why this file is long: it is the loop's whole type vocabulary, kept as one file to mirror pi-agent-core's types.ts name for name, so the two read side by side (code written for pi compiles against it).
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  Model,
  SimpleStreamOptions,
  Static as PiStatic,
  TSchema as PiSchema,
  TextContent,
  Tool,
  ToolResultMessage,
  streamSimple,
} from "@mariozechner/pi-ai";
import type { Static as SinclairStatic, TSchema as SinclairSchema } from "@sinclair/typebox";

/**
 * Any schema a tool may declare: a `@sinclair/typebox` 0.34 schema, a pi-ai
 * `Type` (typebox 1.x) schema, or a plain JSON Schema object.
 */
export type ToolSchema = PiSchema;

/**
 * The TypeScript type of the arguments a schema accepts. Works for both
 * TypeBox generations; plain JSON Schema objects give `any`.
 */
export type ToolArguments<TParameters> = TParameters extends SinclairSchema
  ? SinclairStatic<TParameters>
  : TParameters extends PiSchema
    ? PiStatic<TParameters>
    : any;

/**
 * Stream function used by the loop to obtain one assistant response.
 *
 * Contract:
 * - Should not throw or reject for request, model or runtime failures: encode
 *   them in the returned stream as an `error` event whose message has
 *   `stopReason` `"error"` or `"aborted"` and an `errorMessage`.
 * - If it does throw or reject anyway, the loop turns the failure into such a
 *   message itself; the run still ends with `agent_end`.
 */
export type StreamFn = (
  ...args: Parameters<typeof streamSimple>
) => ReturnType<typeof streamSimple> | Promise<ReturnType<typeof streamSimple>>;

/**
 * How the tool calls of one assistant message run.
 *
 * - `"sequential"`: each call is prepared, executed and finalised before the next.
 * - `"parallel"`: calls are prepared one by one in order, then every admitted
 *   call executes concurrently. `tool_execution_end` follows completion order;
 *   tool-result messages follow the model's call order.
 */
export type ToolExecutionMode = "sequential" | "parallel";

/** How queued steering or follow-up messages are drained at each poll. */
export type QueueMode = "all" | "one-at-a-time";

/** A single tool call content block emitted by an assistant message. */
export type AgentToolCall = Extract<AssistantMessage["content"][number], { type: "toolCall" }>;

/**
 * Result of `beforeToolCall`.
 *
 * `block: true` prevents the tool from executing; the loop records an error
 * tool result whose text is `reason` (or a default). `terminateAgent: true`
 * asks the loop to make no further model request after this batch; in
 * sequential mode the remaining calls of the batch are not executed.
 */
export interface BeforeToolCallResult {
  /** `true`: the tool is not executed; the call is answered with an error result instead. */
  block?: boolean;
  /** Text of that error result; ignored unless `block`. Empty or omitted gives `ToolResultText.blocked`. */
  reason?: string;
  /** Turnkit addition: `details` of the blocked call's error result (e.g. who blocked it). */
  details?: unknown;
  /** Turnkit addition: stop the agent after this batch. */
  terminateAgent?: boolean;
}

/**
 * Partial override returned from `afterToolCall`, merged field by field into
 * the executed result (no deep merge): `content` and `details` replace in
 * full, `isError` and `terminate` replace the flags. Omitted fields (and, as
 * in pi, a `null` or `undefined` value) keep the executed values. `terminateAgent` (Turnkit addition) stops the agent after
 * this batch whatever the other results say.
 */
export interface AfterToolCallResult {
  /** Replaces the executed content in full; omitted or `null` keeps it. */
  content?: (TextContent | ImageContent)[];
  /** Replaces the executed details in full; omitted or `null` keeps them. */
  details?: unknown;
  /** Replaces the error flag of the tool-result message; omitted keeps it. */
  isError?: boolean;
  /** Early-termination hint; the loop stops only when every result of the batch sets it. */
  terminate?: boolean;
  /** Turnkit addition: stop the agent after this batch. */
  terminateAgent?: boolean;
}

/** Context passed to `beforeToolCall`. */
export interface BeforeToolCallContext {
  /** The assistant message that requested the tool call. */
  assistantMessage: AssistantMessage;
  /** The raw tool call block from `assistantMessage.content`. */
  toolCall: AgentToolCall;
  /** Validated (and coerced) arguments for the tool's schema. */
  args: unknown;
  /** Agent context at the time the call is prepared. */
  context: AgentContext;
}

/** Context passed to `afterToolCall`. */
export interface AfterToolCallContext {
  /** The assistant message that requested the tool call. */
  assistantMessage: AssistantMessage;
  /** The raw tool call block from `assistantMessage.content`. */
  toolCall: AgentToolCall;
  /** Validated (and coerced) arguments for the tool's schema. */
  args: unknown;
  /** The executed result before any override is applied. */
  result: AgentToolResult<any>;
  /** Whether the executed result is currently an error. */
  isError: boolean;
  /** Agent context at the time the call is finalised. */
  context: AgentContext;
}

/**
 * Context passed to `onToolExecutionStart` (Turnkit addition): the call was
 * admitted (arguments valid, not blocked) and `execute` is about to run.
 */
export interface ToolExecutionStartContext {
  /** The assistant message that requested the tool call. */
  assistantMessage: AssistantMessage;
  /** The raw tool call block from `assistantMessage.content`. */
  toolCall: AgentToolCall;
  /** Validated (and coerced) arguments `execute` is about to receive. */
  args: unknown;
  /** Agent context at the time the call starts; results of the same batch are not in it yet. */
  context: AgentContext;
}

/** Context passed to `shouldStopAfterTurn`. */
export interface ShouldStopAfterTurnContext {
  /** The assistant message that completed the step. */
  message: AssistantMessage;
  /** Tool-result messages of the preceding `turn_end`. */
  toolResults: ToolResultMessage[];
  /** Agent context after the step's messages were appended. */
  context: AgentContext;
  /** Messages this loop invocation returns if it exits here. */
  newMessages: AgentMessage[];
}

/**
 * Context passed to `shouldStopAfterSteering` (Turnkit addition), after a
 * steering poll at the end of a step returned messages.
 */
export interface ShouldStopAfterSteeringContext {
  /** Steering messages the poll returned (at least one). Not yet in `context`. */
  steeringMessages: AgentMessage[];
  /** The assistant message of the step that just ended. */
  message: AssistantMessage;
  /** Agent context after the step. */
  context: AgentContext;
  /** Messages this loop invocation returns if it exits here. */
  newMessages: AgentMessage[];
}

/**
 * Configuration of one loop run. Extends pi-ai's `SimpleStreamOptions`, which
 * are forwarded to the stream function on every request.
 *
 * Callbacks should not throw; if one does, the loop ends the run with a
 * synthesised `error` assistant message instead of crashing.
 */
export interface AgentLoopConfig extends SimpleStreamOptions {
  /** Model of every request of the run; its `provider` is what `getApiKey` is asked for. */
  model: Model<any>;
  /**
   * Converts the transcript to provider messages before each request. Drop
   * messages the model must not see (UI-only notices).
   */
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Transforms the transcript before `convertToLlm` (pruning, injection). Runs once per request. */
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /** Resolves the API key for each request; asked again on every request. */
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  /** After each `turn_end`: return true to end the run without polling the queues. */
  shouldStopAfterTurn?: (context: ShouldStopAfterTurnContext) => boolean | Promise<boolean>;
  /**
   * Turnkit addition. After a steering poll at a step end returned messages:
   * return true to end the run without another model request. The polled
   * messages are still recorded (`message_start`/`message_end`) before
   * `agent_end`, so nothing is lost; a later `continue()` sends them.
   */
  shouldStopAfterSteering?: (context: ShouldStopAfterSteeringContext) => boolean | Promise<boolean>;
  /** Returns messages to inject before the next request; polled at start and after each step. */
  getSteeringMessages?: () => Promise<AgentMessage[]>;
  /** Returns messages to process when the agent would otherwise stop. */
  getFollowUpMessages?: () => Promise<AgentMessage[]>;
  /** Default `"parallel"`. A tool with `executionMode: "sequential"` makes its whole batch sequential. */
  toolExecution?: ToolExecutionMode;
  /** Runs after argument validation; may block the call or stop the agent after the batch. */
  beforeToolCall?: (context: BeforeToolCallContext, signal?: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  /** Runs after `execute`, before `tool_execution_end`; may patch the result. */
  afterToolCall?: (context: AfterToolCallContext, signal?: AbortSignal) => Promise<AfterToolCallResult | undefined>;
  /** Turnkit addition: observes each admitted call right before `execute`. Errors are ignored. */
  onToolExecutionStart?: (context: ToolExecutionStartContext, signal?: AbortSignal) => void | Promise<void>;
}

/** Reasoning level for models that support it. `"xhigh"` only on some families. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/**
 * Extension point for host-defined messages. Add entries by declaration merging:
 *
 * ```ts
 * declare module "@turnkit/agent-loop" {
 *   interface CustomAgentMessages { notice: { role: "notice"; text: string; timestamp: number } }
 * }
 * ```
 */
// biome-ignore lint: empty interface is the merge target
export interface CustomAgentMessages {}

/** A transcript entry: a provider message or a host-defined custom message. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/**
 * Public state of an {@link Agent}. Assigning `tools` or `messages` copies the
 * top-level array.
 */
export interface AgentState {
  /** System prompt sent with each request. */
  systemPrompt: string;
  /** Model used for future requests. */
  model: Model<any>;
  /** Requested reasoning level for future requests. */
  thinkingLevel: ThinkingLevel;
  /**
   * Replaces the tools with a shallow copy of `tools` (later changes to the
   * caller's array have no effect). A run in progress keeps the tools it
   * started with; the next run uses these. Turnkit addition: throws a
   * `TypeError` naming the field unless each tool is an object with a
   * string `name`, an `execute` function and a `parameters` schema object
   * (the tools stay as they were).
   */
  set tools(tools: AgentTool<any>[]);
  /**
   * The tools the next run offers the model: the state's own array, not a
   * copy. Each run takes a snapshot at its start, so changing it never
   * affects a run in progress.
   */
  get tools(): AgentTool<any>[];
  /**
   * Replaces the transcript with a shallow copy of `messages`. A run in
   * progress keeps the context it started with (the model does not see the
   * change before the next run), but its later `message_end`s are appended
   * to the new transcript. Turnkit addition: throws a `TypeError` naming
   * the field for a malformed message (as `Agent.prompt` checks them; the
   * transcript stays as it was).
   */
  set messages(messages: AgentMessage[]);
  /**
   * The transcript: the state's own array, not a copy. The agent appends
   * each message at its `message_end`; each run takes a snapshot at its
   * start, so changing it never affects a run in progress.
   */
  get messages(): AgentMessage[];
  /** True from `prompt()`/`continue()` until every `agent_end` listener settled. */
  readonly isStreaming: boolean;
  /** Partial assistant message of the response being streamed, if any. */
  readonly streamingMessage?: AgentMessage;
  /** Ids of tool calls currently executing. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** Error message of the most recent failed or aborted response, if any. */
  readonly errorMessage?: string;
}

/** Final or partial result produced by a tool. */
export interface AgentToolResult<T> {
  /** Text or image content returned to the model. */
  content: (TextContent | ImageContent)[];
  /** Structured details for logs or UI. */
  details: T;
  /** Early-termination hint; the loop stops only when every result of the batch sets it. */
  terminate?: boolean;
  /**
   * Turnkit addition: `true` records the result as an error (`isError` on
   * the tool-result message) with this content and details, without
   * throwing. pi-agent-core ignores the field.
   */
  isError?: boolean;
}

/** Callback a tool uses to stream partial results; calls after the tool settled are ignored. */
export type AgentToolUpdateCallback<T = any> = (partialResult: AgentToolResult<T>) => void;

/**
 * A tool the agent can call.
 *
 * `execute` throws on failure rather than encoding errors in `content`; the
 * loop turns a throw into an error tool result. `parameters` may be a
 * `@sinclair/typebox` schema, a pi-ai `Type` schema or plain JSON Schema;
 * arguments are validated and coerced against it before `execute`.
 */
export interface AgentTool<TParameters extends ToolSchema = ToolSchema, TDetails = any> extends Tool<TParameters> {
  /** Human-readable label for UI display. */
  label: string;
  /** Shim for raw arguments before validation; must return an object matching the schema. */
  prepareArguments?: (args: unknown) => ToolArguments<TParameters>;
  /** Runs the call. The signal fires on abort; honour it. */
  execute: (
    toolCallId: string,
    params: ToolArguments<TParameters>,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback<TDetails>,
  ) => Promise<AgentToolResult<TDetails>>;
  /** Per-tool override; `"sequential"` makes the whole batch sequential. */
  executionMode?: ToolExecutionMode;
}

/** Context snapshot handed to the loop. The loop copies `messages`; it never mutates the caller's array. */
export interface AgentContext {
  /** System prompt of every request of the run. */
  systemPrompt: string;
  /** The transcript the run continues from; copied at the start, never mutated. */
  messages: AgentMessage[];
  /**
   * Tools the model may call; omitted means none. A call naming no tool here
   * gets an error result (`ToolResultText.notFound`); of two tools with one
   * name, the first wins.
   */
  tools?: AgentTool<any>[];
}

/**
 * Events of one run, as one discriminated union.
 *
 * Grammar: `agent_start` first and `agent_end` last, once each; `turn_start`
 * / `turn_end` balanced; every `message_start` closed by one `message_end`;
 * every `tool_execution_start` closed by one `tool_execution_end`.
 */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AgentMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: any }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: any; partialResult: any }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: any; isError: boolean };

/** The `type` of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/** Receives loop events; the loop awaits it before going on. */
export type AgentEventSink = (event: AgentEvent) => Promise<void> | void;
