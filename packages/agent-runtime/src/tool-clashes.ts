import { ConfigErrorCode, TurnkitConfigError, type RuntimeTool } from "@turnkit/agent-core";
import type { ExtensionDegradedWarning } from "@turnkit/protocol";
import type { ToolsInUse } from "./tools-in-use.js";

/** A tool of one extension left out of one turn because another extension keeps its name. */
export interface LeftOutTool {
  /** The tool's name, as the model would have seen it. */
  readonly tool: string;
  /** The extension whose tool was left out. */
  readonly extensionId: string;
  /** The extension that keeps the name. */
  readonly keptBy: string;
}

/** One extension's tools of one turn, in registration order. */
export interface ExtensionTools {
  readonly extensionId: string;
  readonly tools: readonly RuntimeTool[];
}

/** What {@link resolveToolClashes} decided. */
export interface ResolvedTools {
  /** The tools kept, per extension, in the order given. */
  readonly kept: readonly (readonly RuntimeTool[])[];
  /** The tools left out, in the order their clashes were found. */
  readonly leftOut: readonly LeftOutTool[];
}

/**
 * Gives each tool name of a turn to one extension. A clash between two
 * extensions is settled by `inUse`: a newcomer (a tool the extension did
 * not have in its last assembled turn) is left out and the tool already in
 * use keeps the name; of two newcomers, the later extension's is left out.
 * Two tools neither of which is a newcomer (a clash present from the
 * start: the host's configuration) throw `duplicate_tool` naming the tool
 * and both extensions; so does one extension giving one name twice.
 */
export function resolveToolClashes(parts: readonly ExtensionTools[], inUse: ToolsInUse | undefined): ResolvedTools {
  const owners = new Map<string, { extensionId: string; tool: RuntimeTool }>();
  const dropped = new Set<RuntimeTool>();
  const leftOut: LeftOutTool[] = [];
  for (const part of parts) {
    for (const tool of part.tools) {
      const name = tool.def.name;
      const owner = owners.get(name);
      if (owner === undefined) {
        owners.set(name, { extensionId: part.extensionId, tool });
        continue;
      }
      if (owner.extensionId === part.extensionId) {
        throw new TurnkitConfigError(
          ConfigErrorCode.DuplicateTool,
          `assembleTurn: extension "${owner.extensionId}" contributes tool "${name}" twice`,
        );
      }
      const ownerIsNew = inUse?.isNewcomer(owner.extensionId, name) ?? false;
      const thisIsNew = inUse?.isNewcomer(part.extensionId, name) ?? false;
      if (!ownerIsNew && !thisIsNew) {
        throw new TurnkitConfigError(
          ConfigErrorCode.DuplicateTool,
          `assembleTurn: tool "${name}" is contributed by both extension "${owner.extensionId}" and extension "${part.extensionId}"`,
        );
      }
      if (thisIsNew) {
        dropped.add(tool);
        leftOut.push({ tool: name, extensionId: part.extensionId, keptBy: owner.extensionId });
      } else {
        dropped.add(owner.tool);
        leftOut.push({ tool: name, extensionId: owner.extensionId, keptBy: part.extensionId });
        owners.set(name, { extensionId: part.extensionId, tool });
      }
    }
  }
  return { kept: parts.map((part) => part.tools.filter((tool) => !dropped.has(tool))), leftOut };
}

/**
 * The `extension_degraded` warning that tells the turn (and the person) a
 * tool was left out, naming both sides; `keeper` is `extension "<id>"` or
 * `the host`.
 */
export function leftOutWarning(tool: string, extensionId: string, keeper: string): ExtensionDegradedWarning {
  return {
    code: "extension_degraded",
    message: `tool "${tool}" of extension "${extensionId}" is left out of this turn: ${keeper} already has a tool of that name (give one of them another name)`,
    extensionId,
    tools: [tool],
  };
}
