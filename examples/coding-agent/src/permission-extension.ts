import { createHookExtension, type Extension } from "@turnkit/agent-runtime";
import { PERMISSION_GUARDED_TOOLS } from "./defaults.js";
import { toolTitle } from "./tool-line.js";

/** One question to the user: may this call run? */
export interface PermissionRequest {
  toolCallId: string;
  toolName: string;
  /** What the call does, in a few words (the command, the path). */
  summary: string;
  /** The whole question, when it is not "allow this call" (an MCP server's yes/no question). */
  question?: string;
}

/**
 * Asks the user and resolves `true` to allow the call. May take as long as
 * the user needs; should reject (or resolve `false`) when `signal` fires.
 * A rejection blocks the call with the error's message.
 */
export type AskPermission = (request: PermissionRequest, signal: AbortSignal) => Promise<boolean>;

/** Options of {@link createPermissionExtension}. */
export interface PermissionExtensionOptions {
  ask: AskPermission;
  /** Tools to ask about. Default {@link PERMISSION_GUARDED_TOOLS} (`bash`, `write`). */
  tools?: readonly string[];
}

/** The id the host uses to switch the extension off for `--yes`. */
export const PERMISSION_EXTENSION_ID = "permissions";

/**
 * Asks before every call of a guarded tool (a `before_tool_call` hook). A
 * refusal blocks the call with `blockedBy: "permission"`: the model gets an
 * error result saying the user refused, the UI can show it as a refusal,
 * and the turn goes on. `--yes` turns the extension off with
 * `runtime.setEnabled(PERMISSION_EXTENSION_ID, false)` instead of
 * special-casing it here.
 */
export function createPermissionExtension(options: PermissionExtensionOptions): Extension {
  const guarded = new Set(options.tools ?? PERMISSION_GUARDED_TOOLS);
  return createHookExtension({
    id: PERMISSION_EXTENSION_ID,
    description: `asks before ${[...guarded].join(" and ")}`,
    hooks: {
      before_tool_call: async (event, signal) => {
        const toolName = event.toolCall.name;
        if (!guarded.has(toolName)) return undefined;
        const summary = toolTitle(toolName, event.args as Record<string, unknown>);
        const allowed = await options.ask({ toolCallId: event.toolCall.id, toolName, summary }, signal);
        if (allowed) return undefined;
        return {
          block: true,
          reason: `The user refused permission to run ${toolName} (${summary}).`,
          blockedBy: "permission",
        };
      },
    },
  });
}
