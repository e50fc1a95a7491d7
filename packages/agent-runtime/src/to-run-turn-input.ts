import {
  ConfigErrorCode,
  TurnkitConfigError,
  createHiddenMessage,
  type HookList,
  type PiTurnHooks,
  type RunTurnInput,
  type RuntimeTool,
} from "@turnkit/agent-core";
import type { ExtensionDegradedWarning } from "@turnkit/protocol";
import { assertRuntimeTool, hookArray } from "@turnkit/agent-core/internal";
import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import type { AssembledTurn } from "./assembled-turn.js";
import { PROMPT_PART_SEPARATOR } from "./defaults.js";
import { leftOutWarning } from "./tool-clashes.js";

/**
 * The host's part of a turn: a `RunTurnInput` whose ids come from the
 * assembled turn (give them only to have them checked) and whose system
 * prompt is optional (the extensions' prefix may be all of it).
 */
export interface HostTurnInputs extends Omit<RunTurnInput, "sessionId" | "turnId" | "systemPrompt"> {
  /** Must equal the assembled turn's `context.sessionId` when given. */
  sessionId?: string;
  /** Must equal the assembled turn's `context.turnId` when given. */
  turnId?: string;
  /** The host's own system prompt; goes after the extensions' prefix. */
  systemPrompt?: string;
}

/**
 * Where the host's hooks go relative to the extensions' in each hook list:
 * `extensions-first` (default) lets the host's hooks see what extensions
 * decided (patched tool results, rewritten requests); `host-first` gives
 * the host the first word (its `beforeToolCallHook` block wins).
 */
export type HookOrder = "extensions-first" | "host-first";

/** Options of {@link toRunTurnInput}. */
export interface ToRunTurnInputOptions {
  /** Where the host's hooks go in each hook list relative to the extensions'; default `extensions-first`. */
  readonly hookOrder?: HookOrder;
}

/**
 * Combines an assembled turn with the host's inputs into the `RunTurnInput`
 * for `PiTurnRunner.runTurn`, so a host's code is: assemble, run,
 * persist. Neither argument is modified; the one thing it records is in
 * `assembled.keptTools`: the extension tools a host tool leaves out.
 *
 * - `sessionId`, `turnId`: the assembled turn's.
 * - `systemPrompt`: the extensions' prefix, a blank line, the host's
 *   prompt (either alone when the other is empty).
 * - `userMessage.text`: the user-prompt prefix, a blank line, the user's
 *   text; images and `batchId` kept. With `startMode: "continue"` there is
 *   no new user message and the user-prompt prefix is not used.
 * - `beforeUserMessages`: the host's, then one hidden message per reminder
 *   (in reminder order, `source` = extension id), so reminders sit right
 *   before the user's message. They are part of the turn's history (the
 *   runner persists them like any hidden message) and reach the model as
 *   user content.
 * - `warnings`: the extensions' (`extension_degraded`, emitted when the
 *   turn starts; also one per extension tool left out for a host tool),
 *   then the host's.
 * - `tools`: the extensions' tools, then the host's. A host tool keeps its
 *   name against a tool an extension's factory made (an MCP server's,
 *   whose names the host does not choose): that tool is left out, with an
 *   `extension_degraded` warning naming both.
 * - `hooks`: per field, extension hooks and host hooks in `hookOrder`
 *   (default extensions first); fields only the host sets (such as
 *   `onToolExecutionStartHook`) are kept as given.
 * - everything else: the host's, unchanged.
 *
 * Throws `TurnkitConfigError`: `duplicate_tool` when a host tool has the
 * name of an extension's static tool (naming both); `invalid_turn_input` when the
 * host gives a `sessionId`/`turnId` different from the assembled turn's, or
 * when an argument is malformed (naming the field: `assembled` not what
 * `assembleTurn` returned, `host.tools` no list, a `host.userMessage.text`
 * that is no string, a host hook that is no function or list of
 * functions, an unknown `hookOrder`, an argument that cannot be read);
 * `invalid_tool` for an entry of `host.tools` that is no tool (a hole
 * included), naming its index. Bad input is never turned into text or
 * hooks the runner would accept.
 */
export function toRunTurnInput(
  assembled: AssembledTurn,
  hostGiven: HostTurnInputs,
  options: ToRunTurnInputOptions = {},
): RunTurnInput {
  let host: HostTurnInputs;
  let problem: string | undefined;
  try {
    // Read once: what follows reads the copy, never a getter of the host's again.
    host = isRecord(hostGiven) ? { ...hostGiven } : hostGiven;
    problem = argumentsProblem(assembled, host, options);
  } catch {
    problem = "an argument could not be read (a revoked proxy or a getter that throws)";
    host = hostGiven;
  }
  if (problem) throw new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, `toRunTurnInput: ${problem}`);
  for (let index = 0; index < (host.tools?.length ?? 0); index++) assertHostTool(host.tools![index], index);
  const { sessionId, turnId } = assembled.context;
  for (const [field, expected] of [
    ["sessionId", sessionId],
    ["turnId", turnId],
  ] as const) {
    const given = host[field];
    if (given !== undefined && given !== expected) {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTurnInput,
        `toRunTurnInput: host ${field} "${given}" differs from the assembled turn's "${expected}"`,
      );
    }
  }

  const { tools, warnings } = extensionToolsBeside(assembled, host.tools ?? []);

  const input: RunTurnInput = {
    ...host,
    sessionId,
    turnId,
    systemPrompt: joinNonEmpty(assembled.systemPromptPrefix, host.systemPrompt ?? ""),
    beforeUserMessages: [
      ...(host.beforeUserMessages ?? []),
      ...assembled.reminders.map((reminder) => createHiddenMessage(reminder.text, reminder.extensionId)),
    ],
    tools: [...tools, ...(host.tools ?? [])],
    ...((warnings.length > 0 || host.warnings !== undefined) && {
      warnings: [...warnings, ...(host.warnings ?? [])],
    }),
    hooks: mergeHooks(assembled.hooks, host.hooks ?? {}, options.hookOrder ?? "extensions-first"),
  };
  if (host.userMessage !== undefined && host.startMode !== "continue") {
    input.userMessage = { ...host.userMessage, text: joinNonEmpty(assembled.userPromptPrefix, host.userMessage.text) };
  }
  return input;
}

/**
 * What is wrong with the arguments as given (`undefined`: nothing), for the
 * fields this function reads itself: `assembled` is what `assembleTurn`
 * returned (a context, tool, reminder and warning lists, hooks); `host` an
 * object whose `tools`, `beforeUserMessages` and `warnings` are lists and
 * whose `userMessage` and `hooks` are objects when given; `options` an
 * object with a known `hookOrder`. The rest of `host` is the runner's to
 * check, as it checks any turn input.
 */
function argumentsProblem(assembled: unknown, host: unknown, options: unknown): string | undefined {
  const got = (value: unknown) => `got ${describeValue(value)}`;
  if (!isRecord(assembled) || !isRecord(assembled.context) || !isRecord(assembled.diagnostic))
    return `assembled must be the turn assembleTurn returned (with its context), ${got(assembled)}`;
  for (const field of ["tools", "reminders", "warnings"] as const)
    if (!Array.isArray(assembled[field])) return `assembled.${field} must be an array, ${got(assembled[field])}`;
  if (!isRecord(host)) return `host must be an object of turn inputs, ${got(host)}`;
  for (const field of ["tools", "beforeUserMessages", "warnings"] as const)
    if (host[field] !== undefined && !Array.isArray(host[field]))
      return `host.${field} must be an array, ${got(host[field])}`;
  for (const field of ["userMessage", "hooks"] as const)
    if (host[field] !== undefined && !isRecord(host[field]))
      return `host.${field} must be an object, ${got(host[field])}`;
  if (isRecord(host.userMessage) && host.startMode !== "continue" && typeof host.userMessage.text !== "string")
    return `host.userMessage.text must be a string, ${got(host.userMessage.text)}`;
  if (isRecord(host.hooks)) {
    for (const [field, hooks] of Object.entries(host.hooks)) {
      if (hooks === undefined || typeof hooks === "function") continue;
      if (!Array.isArray(hooks))
        return `host.hooks.${field} must be a function or an array of functions, ${got(hooks)}`;
      for (let index = 0; index < hooks.length; index++)
        if (typeof hooks[index] !== "function")
          return `host.hooks.${field}[${index}] must be a function, ${got(hooks[index])}`;
    }
  }
  if (!isRecord(options)) return `options must be an object, ${got(options)}`;
  const { hookOrder } = options;
  if (hookOrder !== undefined && hookOrder !== "extensions-first" && hookOrder !== "host-first")
    return `options.hookOrder must be "extensions-first" or "host-first", ${got(hookOrder)}`;
  return undefined;
}

/** Throws `invalid_tool` naming `host.tools[index]` for an entry that is no tool, or one that cannot be read. */
function assertHostTool(tool: unknown, index: number): void {
  const where = `toRunTurnInput: host.tools[${index}]`;
  try {
    assertRuntimeTool(tool, where);
  } catch (error) {
    if (TurnkitConfigError.isInstance(error)) throw error;
    throw new TurnkitConfigError(ConfigErrorCode.InvalidTool, `${where} could not be read`, { cause: error });
  }
}

/**
 * The assembled turn's tools and warnings beside the host's tools: a tool
 * an extension's factory made under a host tool's name is left out, with an
 * `extension_degraded` warning naming both (and out of what
 * `api.keptTools(ctx)` reports); a static one throws `duplicate_tool`.
 */
function extensionToolsBeside(
  assembled: AssembledTurn,
  hostTools: readonly RuntimeTool[],
): { tools: readonly RuntimeTool[]; warnings: readonly ExtensionDegradedWarning[] } {
  const owners = new Map<string, { extensionId: string; madeByFactory: boolean }>();
  for (const summary of assembled.diagnostic.contributions) {
    const factoryTools = new Set(summary.factoryTools);
    for (const name of summary.tools)
      owners.set(name, { extensionId: summary.extensionId, madeByFactory: factoryTools.has(name) });
  }
  const leftOut = new Set<string>();
  const warnings: ExtensionDegradedWarning[] = [...assembled.warnings];
  for (const tool of hostTools) {
    const name = tool.def.name;
    const owner = owners.get(name);
    if (owner === undefined) continue;
    if (!owner.madeByFactory) {
      throw new TurnkitConfigError(
        ConfigErrorCode.DuplicateTool,
        `toRunTurnInput: tool "${name}" is contributed by both extension "${owner.extensionId}" and the host`,
      );
    }
    leftOut.add(name);
    warnings.push(leftOutWarning(name, owner.extensionId, "the host"));
    assembled.keptTools?.leaveOut(assembled.context, owner.extensionId, name);
  }
  if (leftOut.size === 0) return { tools: assembled.tools, warnings };
  return { tools: assembled.tools.filter((tool) => !leftOut.has(tool.def.name)), warnings };
}

function joinNonEmpty(prefix: string, rest: string): string {
  if (prefix === "") return rest;
  if (rest === "") return prefix;
  return `${prefix}${PROMPT_PART_SEPARATOR}${rest}`;
}

function mergeHooks(extensions: PiTurnHooks, host: PiTurnHooks, order: HookOrder): PiTurnHooks {
  const merged: Record<string, readonly unknown[]> = {};
  const fields = new Set([...Object.keys(extensions), ...Object.keys(host)]) as Set<keyof PiTurnHooks>;
  for (const field of fields) {
    const fromExtensions = hookArray(extensions[field] as HookList<unknown> | undefined);
    const fromHost = hookArray(host[field] as HookList<unknown> | undefined);
    const list = order === "host-first" ? [...fromHost, ...fromExtensions] : [...fromExtensions, ...fromHost];
    if (list.length > 0) merged[field] = list;
  }
  return merged as PiTurnHooks;
}
