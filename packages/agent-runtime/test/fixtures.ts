import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, type RuntimeTool } from "@turnkit/agent-core";
import type { Extension, ExtensionAPI, TurnContext } from "../src/index.js";

/** A tool that answers `"<name>: <text>"`. */
export function echoTool(name: string): RuntimeTool {
  return defineRuntimeTool({
    name,
    description: `Echoes its input (${name})`,
    parameters: Type.Object({ text: Type.String() }),
    execute: async (_ctx, input) => ({ content: [{ type: "text", text: `${name}: ${input.text}` }] }),
  });
}

/** A hand-written extension whose init is `init`. */
export function extension(id: string, init: (api: ExtensionAPI) => void | Promise<void> = () => {}): Extension {
  return { id, init };
}

/** A turn context. */
export function turn(sessionId = "s1", turnId = "t1", data?: Record<string, unknown>): TurnContext {
  return data === undefined ? { sessionId, turnId } : { sessionId, turnId, data };
}

/** A promise with its resolve function, for holding an assembly in flight. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets pending microtasks and timers run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The error a function throws (fails the test if it does not). */
export function thrown(fn: () => unknown): Error & { code?: string; cause?: unknown } {
  try {
    fn();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected the function to throw");
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejected(promise: Promise<unknown>): Promise<Error & { code?: string; cause?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected the promise to reject");
}
