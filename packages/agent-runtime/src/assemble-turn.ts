import { ConfigErrorCode, TurnkitConfigError, type PiTurnHooks, type RuntimeTool } from "@turnkit/agent-core";
import { assertRuntimeTool } from "@turnkit/agent-core/internal";
import { assertArrayArgument, describeValue, isUnreadable } from "@turnkit/agent-loop/internal";
import { ExtensionConfigError, ExtensionConfigErrorCode } from "./extension-config-error.js";
import type { ExtensionDegradedWarning } from "@turnkit/protocol";
import type { AssembledReminder, AssembledTurn, ExtensionContributionSummary } from "./assembled-turn.js";
import { PROMPT_PART_SEPARATOR } from "./defaults.js";
import type { PromptContribution, ToolContribution, WarningProvider } from "./extension-api.js";
import { type ContributionKind, ExtensionContributionError } from "./extension-contribution-error.js";
import {
  type BoundTurnEndHandler,
  type BoundTurnStartHandler,
  type ExtensionEventName,
  EXTENSION_EVENT_NAMES,
} from "./extension-events.js";
import { HOOK_MAPPINGS, adaptHookHandler } from "./hook-mappings.js";
import type { ExtensionContributions, Registry } from "./registry.js";
import { wrapSystemReminder } from "./system-reminder.js";
import { leftOutWarning, resolveToolClashes } from "./tool-clashes.js";
import { entriesOf, isList, produced, warningsFrom } from "./contribution-reads.js";
import type { ToolsInUse } from "./tools-in-use.js";
import type { TurnContext } from "./turn-context.js";

/**
 * Collects what the extensions `enabledIds` (a snapshot the caller took,
 * in registry order) contribute to the turn `ctx`. The runtime's
 * `assembleTurn` is this function plus the enabled-state snapshot.
 *
 * Per-turn factories and providers run concurrently; results keep
 * extension order, then registration order. Each extension sees the same
 * frozen copy of `ctx`. With `toolsInUse` (the runtime's), a tool name
 * that clashes only since an extension's tool list changed does not fail
 * the assembly, and the tools of this turn are remembered for the next.
 *
 * Rejects with:
 * - `ExtensionContributionError` when a tool factory, prompt part,
 *   reminder or warning provider throws, rejects, returns a wrong type or
 *   a value that cannot be read (see `contribution-reads.ts`; the first in
 *   extension order when several fail);
 * - `TurnkitConfigError` `invalid_tool` for an invalid tool from a factory;
 * - `TurnkitConfigError` `duplicate_tool` when two tools share a name,
 *   naming the tool and both extensions, unless one of them is a newcomer
 *   by `toolsInUse` (see `resolveToolClashes`): then the newcomer is left
 *   out, in `diagnostic.leftOut` and an `extension_degraded` warning
 *   naming both, and the turn goes on;
 * - `TurnkitConfigError` `invalid_turn_input` for a ctx without
 *   `sessionId`/`turnId`, or one that cannot be read;
 * - `ExtensionConfigError` `invalid_extension_id` for an id the registry
 *   does not hold;
 * - `TypeError` naming the argument for a `registry`, `enabledIds` or
 *   `toolsInUse` that is not what the runtime passes.
 */
export async function assembleTurnFromRegistry(
  registry: Registry,
  enabledIds: readonly string[],
  ctx: TurnContext,
  toolsInUse?: ToolsInUse,
): Promise<AssembledTurn> {
  assertRegistryArguments(registry, enabledIds, toolsInUse);
  const context = freezeContext(ctx);
  const enabled = enabledIds.map((id) => {
    const contributions = registry.contributionsOf(id);
    if (!contributions)
      throw new ExtensionConfigError(
        ExtensionConfigErrorCode.InvalidExtensionId,
        `assembleTurn: unknown extension "${id}"`,
      );
    return contributions;
  });

  const collected = await Promise.allSettled(enabled.map((extension) => collectOne(extension, context)));
  const parts = collected.map(valueOf);

  const resolved = resolveToolClashes(parts, toolsInUse);
  const tools = resolved.kept.flat();

  const reminders = parts.flatMap((part) => part.reminders).sort((a, b) => a.priority - b.priority);

  const hooks: PiTurnHooks = {};
  for (const mapping of HOOK_MAPPINGS) {
    const adapted = enabled.flatMap((extension) =>
      (extension.handlers[mapping.event] as readonly ((...args: any[]) => unknown)[]).map((handler) =>
        adaptHookHandler(mapping.adapter, handler, context),
      ),
    );
    if (adapted.length > 0) (hooks as Record<string, unknown>)[mapping.pi] = adapted;
  }
  const turnStartHandlers: BoundTurnStartHandler[] = enabled.flatMap((extension) =>
    extension.handlers.turn_start.map((handler) => async () => {
      await handler(context);
    }),
  );
  const turnEndHandlers: BoundTurnEndHandler[] = enabled.flatMap((extension) =>
    extension.handlers.turn_end.map((handler) => async (event) => {
      await handler(event, context);
    }),
  );

  parts.forEach((part, index) => {
    const kept = resolved.kept[index]!.map((tool) => tool.def.name);
    toolsInUse?.record(part.extensionId, kept);
    registry.keptTools.record(context, part.extensionId, kept);
  });
  const enabledSet = new Set(enabledIds);
  return {
    context,
    systemPromptPrefix: parts.flatMap((part) => part.systemPrompt).join(PROMPT_PART_SEPARATOR),
    userPromptPrefix: parts.flatMap((part) => part.userPromptPrefix).join(PROMPT_PART_SEPARATOR),
    tools,
    reminders,
    warnings: [
      ...parts.flatMap((part) => part.warnings),
      ...resolved.leftOut.map(({ tool, extensionId, keptBy }) =>
        leftOutWarning(tool, extensionId, `extension "${keptBy}"`),
      ),
    ],
    hooks,
    turnStartHandlers,
    turnEndHandlers,
    diagnostic: {
      enabled: [...enabledIds],
      disabled: registry.ids.filter((id) => !enabledSet.has(id)),
      contributions: parts.map((part, index) => summarise(part, resolved.kept[index]!, enabled[index]!)),
      leftOut: resolved.leftOut,
    },
    keptTools: registry.keptTools,
  };
}

interface CollectedParts {
  extensionId: string;
  tools: RuntimeTool[];
  /** The tools of `tools` that factories made this turn. */
  factoryTools: ReadonlySet<RuntimeTool>;
  systemPrompt: string[];
  userPromptPrefix: string[];
  reminders: AssembledReminder[];
  warnings: ExtensionDegradedWarning[];
}

/** Runs one extension's per-turn contributions; rejects with the first failure (tools, system prompt, user prefix, reminders, warnings; each in registration order). */
async function collectOne(extension: ExtensionContributions, ctx: TurnContext): Promise<CollectedParts> {
  const id = extension.extensionId;
  const settled = await Promise.allSettled([
    settleInOrder(extension.tools.map((tool) => toolsOf(id, tool, ctx))),
    settleInOrder(extension.systemPrompt.map((part) => promptOf(id, "system_prompt", part, ctx))),
    settleInOrder(extension.userPromptPrefix.map((part) => promptOf(id, "user_prompt_prefix", part, ctx))),
    settleInOrder(
      extension.reminders.map(async (provider): Promise<AssembledReminder | undefined> => {
        const text = await textOf(id, "reminder", `reminder provider "${provider.id}"`, () => provider.provide(ctx));
        const wrapped = text === undefined ? undefined : wrapSystemReminder(text);
        return wrapped === undefined
          ? undefined
          : { extensionId: id, providerId: provider.id, priority: provider.priority, text: wrapped };
      }),
    ),
    settleInOrder(extension.warnings.map((provider) => warningsOf(id, provider, ctx))),
  ] as const);
  const [tools, systemPrompt, userPromptPrefix, reminders, warnings] = [
    valueOf(settled[0]),
    valueOf(settled[1]),
    valueOf(settled[2]),
    valueOf(settled[3]),
    valueOf(settled[4]),
  ];
  return {
    extensionId: id,
    tools: tools.flat(),
    factoryTools: new Set(tools.filter((_, index) => typeof extension.tools[index] === "function").flat()),
    systemPrompt: systemPrompt.filter(isText),
    userPromptPrefix: userPromptPrefix.filter(isText),
    reminders: reminders.filter((reminder): reminder is AssembledReminder => reminder !== undefined),
    warnings: warnings.flat(),
  };
}

/** A warning provider's warnings as `extension_degraded` payloads naming the extension (see `warningsFrom`). */
async function warningsOf(
  extensionId: string,
  provider: WarningProvider,
  ctx: TurnContext,
): Promise<ExtensionDegradedWarning[]> {
  const source = { extensionId, kind: "warning" as const, what: "warning provider" };
  return warningsFrom(source, await produced(source, () => provider(ctx)));
}

/** The value of a settled promise, or its rejection thrown. */
function valueOf<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

/**
 * Waits for every promise (so none is left running unobserved) and rejects
 * with the first failure in list order, not in time order: reports are
 * deterministic.
 */
async function settleInOrder<T>(promises: Promise<T>[]): Promise<T[]> {
  return (await Promise.allSettled(promises)).map(valueOf);
}

async function toolsOf(extensionId: string, tool: ToolContribution, ctx: TurnContext): Promise<RuntimeTool[]> {
  if (typeof tool !== "function") return [tool];
  const source = { extensionId, kind: "tool_factory" as const, what: "tool factory" };
  const value = await produced(source, () => tool(ctx));
  if (value === undefined || value === null) return [];
  const many = isList(source, value);
  const list = entriesOf(source, value);
  for (const [index, item] of list.entries()) {
    try {
      // What no code can read is the extension's fault, like a getter that throws: never a config error of the tool's.
      if (isUnreadable(item)) throw new TypeError("a revoked proxy");
      assertRuntimeTool(item, `extension "${extensionId}": tool factory${many ? ` [${index}]` : ""}`);
    } catch (error) {
      if (TurnkitConfigError.isInstance(error)) throw error;
      throw new ExtensionContributionError(
        extensionId,
        "tool_factory",
        `extension "${extensionId}": tool factory returned a tool that could not be read`,
        { cause: error },
      );
    }
  }
  return list as RuntimeTool[];
}

async function promptOf(
  extensionId: string,
  kind: ContributionKind,
  part: PromptContribution,
  ctx: TurnContext,
): Promise<string | undefined> {
  const what = kind === "system_prompt" ? "system prompt part" : "user prompt prefix part";
  const text = typeof part === "string" ? part : await textOf(extensionId, kind, what, () => part(ctx));
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

async function textOf(
  extensionId: string,
  kind: ContributionKind,
  what: string,
  produce: () => unknown,
): Promise<string | undefined> {
  const value = await produced({ extensionId, kind, what }, produce);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new ExtensionContributionError(
      extensionId,
      kind,
      `extension "${extensionId}": ${what} returned ${typeof value}; expected a string or undefined`,
    );
  }
  return value;
}

function isText(value: string | undefined): value is string {
  return value !== undefined;
}

function summarise(
  part: CollectedParts,
  kept: readonly RuntimeTool[],
  extension: ExtensionContributions,
): ExtensionContributionSummary {
  const hooks: Partial<Record<ExtensionEventName, number>> = {};
  for (const event of EXTENSION_EVENT_NAMES) {
    const count = extension.handlers[event].length;
    if (count > 0) hooks[event] = count;
  }
  return {
    extensionId: part.extensionId,
    tools: kept.map((tool) => tool.def.name),
    factoryTools: kept.filter((tool) => part.factoryTools.has(tool)).map((tool) => tool.def.name),
    systemPromptParts: part.systemPrompt.length,
    userPromptPrefixParts: part.userPromptPrefix.length,
    reminders: part.reminders.map((reminder) => reminder.providerId),
    hooks,
  };
}

/** A frozen copy of the host's `ctx`, read once: a ctx that cannot be read is refused as one that is no object. */
/**
 * Throws a `TypeError` naming the argument of {@link assembleTurnFromRegistry}
 * that is not what it takes: `registry` the runtime's registry, `enabledIds`
 * a list of extension ids (checked entry by entry, so a list of length
 * 2^32 - 1 fails at its first hole), `toolsInUse` the runtime's record or
 * `undefined`.
 */
function assertRegistryArguments(registry: unknown, enabledIds: unknown, toolsInUse: unknown): void {
  const where = "assembleTurnFromRegistry";
  if (!hasMethod(registry, "contributionsOf"))
    throw new TypeError(`${where}: registry must be the runtime's extension registry, got ${describeValue(registry)}`);
  assertArrayArgument(enabledIds, where, "enabledIds", "extension ids");
  for (let index = 0; index < enabledIds.length; index++) {
    let id: unknown;
    try {
      id = enabledIds[index];
    } catch (error) {
      throw new TypeError(`${where}: enabledIds[${index}] could not be read`, { cause: error });
    }
    if (typeof id !== "string")
      throw new TypeError(`${where}: enabledIds[${index}] must be an extension id, got ${describeValue(id)}`);
  }
  if (toolsInUse !== undefined && !hasMethod(toolsInUse, "isNewcomer"))
    throw new TypeError(
      `${where}: toolsInUse must be the runtime's record of tools in use, got ${describeValue(toolsInUse)}`,
    );
}

/** Whether `value` can be read and has a function `name`. */
function hasMethod(value: unknown, name: string): boolean {
  if (typeof value !== "object" || value === null || isUnreadable(value)) return false;
  try {
    return typeof (value as Record<string, unknown>)[name] === "function";
  } catch {
    return false;
  }
}

function freezeContext(ctx: TurnContext): TurnContext {
  if (typeof ctx !== "object" || ctx === null) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTurnInput,
      "assembleTurn: ctx must be an object { sessionId, turnId }",
    );
  }
  let copy: TurnContext;
  try {
    copy = { ...ctx };
  } catch (error) {
    throw new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, "assembleTurn: ctx could not be read", {
      cause: error,
    });
  }
  for (const field of ["sessionId", "turnId"] as const) {
    if (typeof copy[field] !== "string" || copy[field] === "") {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTurnInput,
        `assembleTurn: ctx.${field} must be a non-empty string`,
      );
    }
  }
  return Object.freeze(copy);
}
