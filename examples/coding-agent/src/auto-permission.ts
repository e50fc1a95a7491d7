import type { AskPermission } from "./permission-extension.js";
import type { Renderer } from "./renderer.js";

/**
 * Answers permission prompts without a terminal: `decide` gives the answer,
 * and the question and answer are printed with `note` saying who answered
 * (the scripted user of the demo, or the "no terminal" refusal of a real
 * model run without `--yes`).
 */
export function createAutoPermission(
  renderer: Renderer,
  decide: (request: { toolName: string }) => boolean,
  note: string,
): AskPermission {
  return async (request) => {
    const allowed = decide(request);
    renderer.permissionAnswered(request, allowed, note);
    return allowed;
  };
}
