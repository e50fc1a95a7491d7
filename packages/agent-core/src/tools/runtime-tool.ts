import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { ToolArguments, ToolExecutionMode, ToolSchema } from "@turnkit/agent-loop";
import type { AskHost } from "../action-requests.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";

/**
 * Who is calling a tool. Built fresh for every call by `newTools`; per-turn
 * state reaches a tool by closure (the tool was created for this turn), never
 * through async-local storage.
 */
export interface ToolExecutionContext {
  /** The host session the turn belongs to. */
  readonly sessionId: string;
  /** The turn (one `runTurn()`) this call belongs to. */
  readonly turnId: string;
  /** The model's id of this tool call; also the id of its tool-result message. */
  readonly toolCallId: string;
  /**
   * The call's key, unique within the turn: `toolCallId`, or
   * `<toolCallId>#<k>` for the k-th call of the turn that runs under an id
   * the model reused in a later response (some OpenAI-compatible servers
   * name every response's call `call_0`; calls blocked before running are
   * not counted). A sub-agent call's child turn id and the ids
   * of what the call asks the host are built on it. Absent when a tool is
   * run by hand, outside `newTools`: use `toolCallId`.
   */
  readonly callKey?: string;
  /**
   * Host-assigned id of the assistant message that requested the call, or
   * `undefined` when no id was assigned (a tool run outside a turn runner).
   */
  readonly assistantMessageId: string | undefined;
  /**
   * Asks the turn's host for what only a person can give (input, an
   * approval) and waits: an `action.required` event, answered by the
   * host's `RunTurnInput.answerActionRequest`. Resolves with a typed
   * outcome (answered, timed out, aborted, refused), never rejects, never
   * hangs. Absent when a tool is run by hand, outside `newTools`.
   */
  readonly askHost?: AskHost;
}

/**
 * What a runtime tool returns.
 *
 * - `content` goes to the model as the tool result.
 * - `details` is for logs and UI; the model never sees it.
 * - `isError: true` records the call as failed: the transcript gets a tool
 *   result with `isError: true` whose text is the text of `content` (see
 *   `newTools` for how it travels through the loop). Throwing has the same
 *   effect with the error's message as text.
 * - `terminate: true` hints that the run may stop after this batch; the loop
 *   stops only when every result of the batch sets it.
 */
export interface RuntimeToolResult<TDetails = unknown> {
  /** Sent to the model as the result. Text and image blocks only; anything else makes the call an error result. */
  content: (TextContent | ImageContent)[];
  /** For logs and UI, never sent to the model; omitted becomes `{}`. */
  details?: TDetails;
  /** `true` records the call as failed, with this content and details. Anything but a boolean makes the call an error result naming it. */
  isError?: boolean;
  /** Asks to stop after this batch; honoured only when every result of the batch sets it. Anything but a boolean makes the call an error result naming it. */
  terminate?: boolean;
}

/**
 * Streams a partial result while a tool runs (shown as progress, never sent
 * to the model). Calls after the tool settled are ignored.
 */
export type RuntimeToolUpdateCallback<TDetails = unknown> = (partial: {
  content: (TextContent | ImageContent)[];
  details?: TDetails;
}) => void;

/**
 * The declaration of a tool: everything the model and the loop need to know
 * before it runs. Plain data plus two optional pure functions, so it can be
 * listed, validated and shown without executing anything.
 */
export interface RuntimeToolDef<TParameters extends ToolSchema = ToolSchema> {
  /** Name the model calls; letters, digits, `_` and `-`, at most 64 (what every provider accepts). */
  name: string;
  /** Human-readable label for UIs; defaults to `name`. */
  label?: string;
  /** What the tool does and when to use it; sent to the model. */
  description: string;
  /** Schema of the arguments, an object schema (TypeBox or plain JSON Schema). */
  parameters: TParameters;
  /**
   * `"parallel"` for tools that only read; `"sequential"` (the default when
   * omitted) makes the whole batch of the response run one call at a time.
   */
  executionMode?: ToolExecutionMode;
  /** Lines a host may add to its system prompt about using this tool. Not sent by the loop itself. */
  promptGuidelines?: string[];
  /**
   * Shim for raw arguments before validation (older argument shapes); must
   * not throw for valid input. In a turn it receives an object: arguments
   * the model sent that are no JSON object are answered with an error
   * before it runs.
   */
  prepareArguments?: (args: unknown) => ToolArguments<TParameters>;
}

/**
 * The behaviour of a tool.
 *
 * `execute` resolves to a {@link RuntimeToolResult}. It may throw (or reject):
 * the call is then recorded as an error result carrying the error's message.
 * `signal` fires when the turn is aborted; honour it promptly, since the loop
 * gives up waiting shortly after an abort.
 */
export interface RuntimeToolImpl<TParameters extends ToolSchema = ToolSchema, TDetails = unknown> {
  /**
   * Runs one admitted call (arguments valid, no hook blocked it). `ctx` is
   * fresh and frozen for each call; `input` is validated and coerced against
   * `parameters`; `signal` and `onUpdate` are always given. May answer
   * synchronously or with a promise.
   *
   * A throw or rejection is recorded as an error result with the error's
   * message; so is a malformed result (no `content` array), naming the tool.
   * Once `signal` has fired, a call that has not settled within the abort
   * grace (`ABORT_GRACE_MS` of `@turnkit/agent-loop`) is recorded as aborted
   * and its late result is discarded.
   */
  execute(
    ctx: ToolExecutionContext,
    input: ToolArguments<TParameters>,
    signal: AbortSignal,
    onUpdate: RuntimeToolUpdateCallback<TDetails>,
  ): Promise<RuntimeToolResult<TDetails>> | RuntimeToolResult<TDetails>;
}

/**
 * A tool as a host binds it: the declaration and the behaviour,
 * kept apart so the declaration can be inspected without the behaviour.
 * Build one with `defineRuntimeTool`, or from a `@bindTool` class with
 * `toRuntimeTool`; turn a list into loop tools with `newTools`.
 */
export interface RuntimeTool<TParameters extends ToolSchema = ToolSchema, TDetails = unknown> {
  /** The declaration: what the model is told and how calls are scheduled. Read, never modified. */
  readonly def: RuntimeToolDef<TParameters>;
  /** The behaviour: `execute` runs once per admitted call. */
  readonly impl: RuntimeToolImpl<TParameters, TDetails>;
}

const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const EXECUTION_MODES: readonly ToolExecutionMode[] = ["sequential", "parallel"];

/**
 * Checks a tool declaration and throws `TurnkitConfigError` (`invalid_tool`)
 * naming every problem found, so a host fixes them in one go. `where` says
 * which API was given the declaration. Never modifies `def`.
 */
export function assertRuntimeToolDef(def: unknown, where: string): asserts def is RuntimeToolDef {
  if (!isRecord(def)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `${where}: expected a tool declaration object, got ${describeValue(def)}`,
    );
  }
  const d = def as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof d.name !== "string" || d.name.length === 0) problems.push("missing name");
  else if (!TOOL_NAME_PATTERN.test(d.name))
    problems.push(`name must match ${TOOL_NAME_PATTERN} (letters, digits, "_" or "-", at most 64)`);
  if (typeof d.description !== "string" || d.description.trim().length === 0) problems.push("missing description");
  if (d.parameters === undefined || d.parameters === null) problems.push("missing parameters (an object schema)");
  else if (typeof d.parameters !== "object" || Array.isArray(d.parameters))
    problems.push(`parameters must be an object schema, got ${describeValue(d.parameters)}`);
  else if ((d.parameters as { type?: unknown }).type !== "object")
    problems.push(
      `parameters must be an object schema (type "object"), got type ${describeValue((d.parameters as { type?: unknown }).type)}`,
    );
  if (d.label !== undefined && typeof d.label !== "string") problems.push("label must be a string");
  if (d.executionMode !== undefined && !EXECUTION_MODES.includes(d.executionMode as ToolExecutionMode)) {
    problems.push(`executionMode must be "sequential" or "parallel", got ${describeValue(d.executionMode)}`);
  }
  if (d.prepareArguments !== undefined && typeof d.prepareArguments !== "function")
    problems.push("prepareArguments must be a function");
  if (d.promptGuidelines !== undefined && (!Array.isArray(d.promptGuidelines) || !isStringList(d.promptGuidelines))) {
    problems.push("promptGuidelines must be an array of strings");
  }
  if (problems.length > 0) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `${where}: tool ${toolLabel(d.name)} is invalid: ${problems.join("; ")}`,
    );
  }
}

/**
 * Checks a whole `RuntimeTool` (declaration plus an `impl.execute` function)
 * and throws `TurnkitConfigError` (`invalid_tool`) naming what is wrong.
 */
export function assertRuntimeTool(tool: unknown, where: string): asserts tool is RuntimeTool {
  if (!isRecord(tool)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `${where}: expected a RuntimeTool { def, impl }, got ${describeValue(tool)}`,
    );
  }
  const { def, impl } = tool as { def?: unknown; impl?: unknown };
  if (def === undefined) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `${where}: expected a RuntimeTool { def, impl }; "def" is missing (build tools with defineRuntimeTool or toRuntimeTool)`,
    );
  }
  assertRuntimeToolDef(def, where);
  if (typeof impl !== "object" || impl === null || typeof (impl as { execute?: unknown }).execute !== "function") {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `${where}: tool ${toolLabel(def.name)} is invalid: missing execute (impl.execute must be a function)`,
    );
  }
}

function toolLabel(name: unknown): string {
  return typeof name === "string" && name.length > 0 ? JSON.stringify(name) : "(unnamed)";
}

/** Every entry a string; a hole is an `undefined` entry. Stops at the first other one (a list with a length of 2^32 - 1 is refused at once). */
function isStringList(list: readonly unknown[]): boolean {
  for (let index = 0; index < list.length; index++) if (typeof list[index] !== "string") return false;
  return true;
}
