import type { RuntimeEvent } from "@turnkit/protocol";
import type { ScriptedUser } from "./scripted-session.js";

/**
 * Plays the scripted user's keyboard during a run: when the tool named in
 * `user.steering.afterTool` finishes, it "types" the steering text once,
 * through `steer` (the same path as Enter in the terminal). Returns the
 * event listener to feed every `RuntimeEvent` to; without steering it does
 * nothing.
 */
export function createScriptedTypist(user: ScriptedUser, steer: (text: string) => void): (event: RuntimeEvent) => void {
  let typed = false;
  return (event) => {
    // A sub-agent's events (with origin) are not the turn's own tool calls.
    if (typed || !user.steering || event.type !== "stream.resp" || event.origin) return;
    const { chunk } = event.payload;
    if (chunk.kind === "tool_call" && chunk.status === "finished" && chunk.toolName === user.steering.afterTool) {
      typed = true;
      steer(user.steering.text);
    }
  };
}
