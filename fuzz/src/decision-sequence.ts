import type { AfterToolCallPatch } from "@turnkit/agent-core";
import { revokedProxy } from "@turnkit/agent-loop/testing";
import type { AfterToolDecision } from "./scenario.js";

/**
 * Generated hooks and host callbacks answer from a list of decisions, one
 * per call, in call order.
 */

/** Returns the next decision of `list` on each call; past its end (or without a list), `fallback`. */
export function decisionSequence<T>(list: readonly T[] | undefined, fallback: T): () => T {
  let next = 0;
  return () => (list && next < list.length ? list[next++]! : fallback);
}

/**
 * The patch an `afterToolCall` decision stands for, shared by the loop's
 * `afterToolCall` and the runner's `afterToolCallHook`; `throw` throws an
 * error naming `hookName`.
 */
export function afterToolPatch(decision: AfterToolDecision, hookName: string): AfterToolCallPatch | undefined {
  switch (decision) {
    case "none":
      return undefined;
    case "patchContent":
      return { content: [{ type: "text", text: `patched by ${hookName}` }] };
    case "isError":
      return { isError: true };
    case "terminate":
      return { terminate: true };
    case "terminateAgent":
      return { terminateAgent: true };
    case "throw":
      throw new Error(`${hookName} failed`);
    case "revoked":
      return revokedProxy() as never;
  }
}
