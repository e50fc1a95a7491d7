import { contentProblem, describeValue } from "../messages/content-checks.js";
import { rawArgumentsProblem } from "../messages/tool-call-arguments.js";
import type { AgentTool, AgentToolResult } from "@turnkit/agent-loop";
import { isRecord } from "@turnkit/agent-loop/internal";
import { type ActionRequestWait, callIdOccurrences, toolCallAskHost } from "../action-requests.js";
import type { BashEnvSpawnHookOptions } from "../bash-env.js";
import { TURN_DEFAULTS } from "../defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import {
  assertRuntimeTool,
  type RuntimeTool,
  type RuntimeToolResult,
  type ToolExecutionContext,
} from "./runtime-tool.js";
import { createBashTool } from "./builtin/bash-tool.js";
import { createEditTool } from "./builtin/edit-tool.js";
import { createReadTool } from "./builtin/read-tool.js";
import { createWriteTool } from "./builtin/write-tool.js";

/** Options of {@link newTools}: who the tools run for, and the built-in fallback. */
export interface NewToolsOptions {
  /** The host session, passed to every call's `ToolExecutionContext` as given. */
  sessionId: string;
  /** The turn the tools serve, passed to every call's `ToolExecutionContext` as given. */
  turnId: string;
  /**
   * Host-assigned id of the assistant message that requested `toolCallId`
   * (the EventBridge knows it), or `undefined`. Asked once per call, when
   * the call starts executing.
   */
  resolveAssistantMessageId: (toolCallId: string) => string | undefined;
  /** Workspace of the fallback built-ins. Default `process.cwd()` at the time `newTools` runs. */
  workspaceDir?: string;
  /** No built-in fallback at all: the model sees only the host's tools. */
  disableBuiltinToolFallback?: boolean;
  /** Environment sanitising of the fallback `bash` tool. */
  bashEnv?: BashEnvSpawnHookOptions;
  /** The turn's wait for its host's answers, behind each call's `ctx.askHost`; absent: every request is refused. */
  waitForActionAnswer?: ActionRequestWait;
  /** Prefix of the ids of what the tools ask the host (`requestIdScope` of the turn's sub-agent calls); default `""`. */
  requestIdScope?: string;
  /** Told when a call's `execute` settled (returned or threw), before its result is checked. Errors are ignored. */
  onExecuteSettled?: (toolCallId: string) => void;
  /** Told about a progress update a tool sent after its `execute` settled; such an update is dropped. Errors are ignored. */
  onLateUpdate?: (toolCallId: string, toolName: string) => void;
}

/** The built-ins added when the host binds no tool of that name. */
export const BUILTIN_FALLBACK_TOOL_NAMES = ["read", "write", "edit", "bash"] as const;

/**
 * Turns the host's runtime tools into the loop's tools for one turn.
 *
 * - Every tool is validated; a malformed one throws `TurnkitConfigError`
 *   `invalid_tool`, two with one name throw `duplicate_tool` naming it.
 *   Nothing is returned half-built.
 * - A tool without `executionMode` runs `"sequential"`.
 * - Unless `disableBuiltinToolFallback`, the built-ins `read`, `write`,
 *   `edit`, `bash` (on `workspaceDir`) are appended for every one of those
 *   names the host did not bind; host tools come first, in their order.
 * - Each call gets a fresh {@link ToolExecutionContext} and always a signal
 *   and an update callback (no-ops when the loop gives none), and its
 *   `callKey`: its call id, or `<id>#<k>` for the k-th call of the tool
 *   table under one id (a model reusing ids across responses), counted as
 *   calls start.
 *
 * How results reach the transcript: a result is returned as is (`details`
 * defaults to `{}`); `isError: true` makes it an error result with the
 * tool's own content and details (the loop's `AgentToolResult.isError`). A
 * tool that throws is recorded as an error result with the error's message,
 * and so is a malformed result (no `content` array), whose error names the
 * tool. A call whose arguments the turn carries as `{ rawArguments }` (the
 * model sent arguments that are no JSON object) is answered with an error
 * naming the tool and what was sent, before the tool's `prepareArguments`
 * or the schema check; the tool does not run.
 */
export function newTools(runtimeTools: readonly RuntimeTool<any, any>[], options: NewToolsOptions): AgentTool<any>[] {
  if (!Array.isArray(runtimeTools)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTool,
      `newTools: expected an array of RuntimeTools, got ${runtimeTools === null ? "null" : typeof runtimeTools}`,
    );
  }
  const seen = new Set<string>();
  // Array.from: a hole in the list is an `undefined` tool, refused as one (forEach would skip it).
  Array.from(runtimeTools).forEach((tool, index) => {
    assertRuntimeTool(tool, `newTools: tools[${index}]`);
    if (seen.has(tool.def.name)) {
      throw new TurnkitConfigError(
        ConfigErrorCode.DuplicateTool,
        `newTools: two tools are named ${JSON.stringify(tool.def.name)}; tool names must be unique`,
      );
    }
    seen.add(tool.def.name);
  });

  const all: RuntimeTool<any, any>[] = [...runtimeTools];
  if (!options.disableBuiltinToolFallback) {
    const workspaceDir = options.workspaceDir ?? process.cwd();
    for (const name of BUILTIN_FALLBACK_TOOL_NAMES) {
      if (!seen.has(name)) all.push(createFallbackTool(name, workspaceDir, options.bashEnv));
    }
  }
  const callKeyOf = callIdOccurrences();
  return all.map((tool) => toAgentTool(tool, options, callKeyOf));
}

function createFallbackTool(
  name: (typeof BUILTIN_FALLBACK_TOOL_NAMES)[number],
  workspaceDir: string,
  bashEnv: BashEnvSpawnHookOptions | undefined,
): RuntimeTool<any, any> {
  switch (name) {
    case "read":
      return createReadTool({ workspaceDir });
    case "write":
      return createWriteTool({ workspaceDir });
    case "edit":
      return createEditTool({ workspaceDir });
    case "bash":
      return createBashTool({ workspaceDir, ...(bashEnv && { bashEnv }) });
    default: {
      const unreachable: never = name;
      throw new Error(`unknown built-in ${String(unreachable)}`);
    }
  }
}

function toAgentTool(
  tool: RuntimeTool<any, any>,
  options: NewToolsOptions,
  callKeyOf: (toolCallId: string) => string,
): AgentTool<any> {
  const { def, impl } = tool;
  const wait = options.waitForActionAnswer?.bind(options);
  const agentTool: AgentTool<any> = {
    name: def.name,
    label: def.label ?? def.name,
    description: def.description,
    parameters: def.parameters,
    executionMode: def.executionMode ?? TURN_DEFAULTS.runtimeToolExecutionMode,
    async execute(toolCallId, params, signal, onUpdate): Promise<AgentToolResult<any>> {
      const callSignal = signal ?? new AbortController().signal;
      const assistantMessageId = options.resolveAssistantMessageId(toolCallId);
      const callKey = callKeyOf(toolCallId);
      const ctx: ToolExecutionContext = Object.freeze({
        sessionId: options.sessionId,
        turnId: options.turnId,
        toolCallId,
        callKey,
        assistantMessageId,
        askHost: toolCallAskHost(wait, {
          toolCallId,
          assistantMessageId,
          callSignal,
          scope: options.requestIdScope,
          callName: callKey,
        }),
      });
      let settled = false;
      let result: unknown;
      try {
        // The loop hands each tool a copy of its arguments: a tool that edits them never edits the call in the transcript.
        result = await impl.execute(ctx, params, callSignal, (partial) => {
          if (settled) return notify(options, "onLateUpdate", toolCallId, def.name);
          const update = progressOf(partial);
          if (update) onUpdate?.(update);
        });
      } finally {
        settled = true;
        notify(options, "onExecuteSettled", toolCallId, def.name);
      }
      return converted(def.name, result);
    },
  };
  const prepare = def.prepareArguments;
  agentTool.prepareArguments = (args) => {
    // Arguments that were no object (the turn wrapped them): an error result naming them, before any shim or check.
    const problem = rawArgumentsProblem(def.name, args);
    if (problem) throw new Error(problem);
    return prepare ? prepare(args) : args;
  };
  return agentTool;
}

/**
 * A tool's progress update as the loop takes it, or `undefined` for one
 * that is no object or cannot be read (a revoked proxy, a getter that
 * throws): progress is the tool's report, not its result, so a malformed
 * one is dropped, never thrown back into the tool.
 */
function progressOf(partial: unknown): AgentToolResult<unknown> | undefined {
  if (!isRecord(partial)) return undefined;
  try {
    return { content: partial.content as AgentToolResult<unknown>["content"], details: partial.details ?? {} };
  } catch {
    return undefined;
  }
}

/**
 * Tells an observer of the tool table about a call, called as a method of
 * `options` (a host may pass an object whose methods they are); whatever it
 * throws stays out of the tool.
 */
function notify(
  options: NewToolsOptions,
  observer: "onExecuteSettled" | "onLateUpdate",
  toolCallId: string,
  toolName: string,
): void {
  try {
    options[observer]?.(toolCallId, toolName);
  } catch {
    // An observer's failure is its own.
  }
}

/** The loop's result for what a tool returned; throws for a malformed one. */
function converted(toolName: string, result: unknown): AgentToolResult<any> {
  const checked = checkResult(toolName, result);
  const loopResult: AgentToolResult<any> = {
    content: wellFormedContent(checked.content),
    details: checked.details ?? {},
  };
  if (checked.terminate === true) loopResult.terminate = true;
  if (checked.isError === true) loopResult.isError = true;
  return loopResult;
}

/** Half of a UTF-16 character: a high surrogate without its low one after it, or a low one without its high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `content` with every lone surrogate of its text replaced by U+FFFD (as
 * `String.prototype.toWellFormed` does). A text cut in the middle of a
 * character, or a server's `"\udcff"` for a byte it could not decode,
 * would otherwise stay in the transcript, and providers whose JSON parser
 * refuses it fail every later request of the session. The blocks are
 * copied only when one changes.
 */
function wellFormedContent(content: RuntimeToolResult["content"]): RuntimeToolResult["content"] {
  if (!content.some((block) => block.type === "text" && LONE_SURROGATE.test(block.text))) return content;
  const everyLone = new RegExp(LONE_SURROGATE.source, "g");
  return content.map((block) =>
    block.type === "text" && LONE_SURROGATE.test(block.text)
      ? { ...block, text: block.text.replace(everyLone, "\uFFFD") }
      : block,
  );
}

function checkResult(toolName: string, result: unknown): RuntimeToolResult {
  if (typeof result !== "object" || result === null || !Array.isArray((result as RuntimeToolResult).content)) {
    throw new Error(
      `Tool ${JSON.stringify(toolName)} returned an invalid result: expected { content: [...] }, got ${result === null ? "null" : typeof result === "object" ? "an object without a content array" : typeof result}`,
    );
  }
  const problem =
    contentProblem((result as RuntimeToolResult).content, undefined, false) ?? flagProblem(result as RuntimeToolResult);
  if (problem) throw new Error(`Tool ${JSON.stringify(toolName)} returned an invalid result: ${problem}`);
  return result as RuntimeToolResult;
}

/** A result's `isError` or `terminate` set to anything but a boolean (`"yes"` would otherwise count as `false`). */
function flagProblem(result: RuntimeToolResult): string | undefined {
  for (const flag of ["isError", "terminate"] as const) {
    const value: unknown = result[flag];
    if (value !== undefined && typeof value !== "boolean")
      return `${flag} must be a boolean, got ${describeValue(value)}`;
  }
  return undefined;
}
