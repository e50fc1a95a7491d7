import {
  ConfigErrorCode,
  TurnkitConfigError,
  createHiddenMessage,
  type HookList,
  type PiTurnHooks,
  type RunTurnInput,
} from "@turnkit/agent-core";
import { hookArray } from "@turnkit/agent-core/internal";
import type { AssembledTurn } from "./assembled-turn.js";
import { PROMPT_PART_SEPARATOR } from "./defaults.js";

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
 * persist. Pure: neither argument is modified.
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
 *   turn starts), then the host's.
 * - `tools`: the extensions' tools, then the host's.
 * - `hooks`: per field, extension hooks and host hooks in `hookOrder`
 *   (default extensions first); fields only the host sets (such as
 *   `onToolExecutionStartHook`) are kept as given.
 * - everything else: the host's, unchanged.
 *
 * Throws `TurnkitConfigError`: `duplicate_tool` when a host tool has the
 * name of an extension's tool (naming both); `invalid_turn_input` when the
 * host gives a `sessionId`/`turnId` different from the assembled turn's.
 */
export function toRunTurnInput(
  assembled: AssembledTurn,
  host: HostTurnInputs,
  options: ToRunTurnInputOptions = {},
): RunTurnInput {
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

  const owners = new Map<string, string>();
  for (const summary of assembled.diagnostic.contributions)
    for (const name of summary.tools) owners.set(name, summary.extensionId);
  for (const tool of host.tools ?? []) {
    const owner = owners.get(tool.def.name);
    if (owner !== undefined) {
      throw new TurnkitConfigError(
        ConfigErrorCode.DuplicateTool,
        `toRunTurnInput: tool "${tool.def.name}" is contributed by both extension "${owner}" and the host`,
      );
    }
  }

  const input: RunTurnInput = {
    ...host,
    sessionId,
    turnId,
    systemPrompt: joinNonEmpty(assembled.systemPromptPrefix, host.systemPrompt ?? ""),
    beforeUserMessages: [
      ...(host.beforeUserMessages ?? []),
      ...assembled.reminders.map((reminder) => createHiddenMessage(reminder.text, reminder.extensionId)),
    ],
    tools: [...assembled.tools, ...(host.tools ?? [])],
    ...((assembled.warnings.length > 0 || host.warnings !== undefined) && {
      warnings: [...assembled.warnings, ...(host.warnings ?? [])],
    }),
    hooks: mergeHooks(assembled.hooks, host.hooks ?? {}, options.hookOrder ?? "extensions-first"),
  };
  if (host.userMessage !== undefined && host.startMode !== "continue") {
    input.userMessage = { ...host.userMessage, text: joinNonEmpty(assembled.userPromptPrefix, host.userMessage.text) };
  }
  return input;
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
