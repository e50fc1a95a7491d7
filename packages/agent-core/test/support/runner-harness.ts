/**
 * Test support for the runner scenarios: the public testing entry (a turn
 * against a scripted model, a recording writer, the sequence checker) plus
 * small helpers only these tests need (tools, deferreds, listener and timer
 * accounting).
 */
import { getEventListeners } from "node:events";
import { Type } from "@sinclair/typebox";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RecordedRequest } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent, StreamToolCallChunk } from "@turnkit/protocol";
import { defineRuntimeTool } from "../../src/tools/define-runtime-tool.js";
import type { RuntimeTool, RuntimeToolResult, ToolExecutionContext } from "../../src/tools/runtime-tool.js";
import {
  type RunScriptedTurnOptions,
  type ScriptedTurnResult,
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  runScriptedTurn,
} from "../../src/testing/index.js";

export * from "../../src/testing/index.js";

/**
 * Runs a scripted turn and checks what must hold after every ending: a valid
 * event sequence (X1, X3) and a transcript in which each tool call has a
 * result (X5).
 */
export async function runChecked(options: RunScriptedTurnOptions): Promise<ScriptedTurnResult> {
  const result = await runScriptedTurn(options);
  assertRuntimeEventSequence(result.events);
  assertToolCallsAnswered(result.transcript);
  return result;
}

/** A promise with its resolver, for tools and hooks a test releases by hand. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** One recorded call of a {@link recordingTool}. */
export interface ToolCallRecord {
  ctx: ToolExecutionContext;
  input: Record<string, unknown>;
}

/** A runtime tool that records its calls and answers with `answer(input)` (default: `name:<input.value>`). */
export function recordingTool(
  name: string,
  options: {
    executionMode?: "sequential" | "parallel";
    answer?: (input: Record<string, unknown>, signal: AbortSignal, ctx: ToolExecutionContext) => RuntimeToolResult | Promise<RuntimeToolResult>;
  } = {},
): RuntimeTool & { calls: ToolCallRecord[] } {
  const calls: ToolCallRecord[] = [];
  const tool = defineRuntimeTool({
    name,
    description: `Test tool ${name}`,
    parameters: Type.Object({ value: Type.Optional(Type.String()) }),
    ...(options.executionMode && { executionMode: options.executionMode }),
    execute: async (ctx, input, signal) => {
      calls.push({ ctx, input: input as Record<string, unknown> });
      if (options.answer) return options.answer(input as Record<string, unknown>, signal, ctx);
      return { content: [{ type: "text", text: `${name}:${(input as { value?: string }).value ?? ""}` }] };
    },
  });
  return Object.assign(tool, { calls });
}

/** Number of `abort` listeners on a signal (node's own accounting, no wrapping needed). */
export function abortListenerCount(signal: AbortSignal): number {
  return getEventListeners(signal, "abort").length;
}

/** The user-visible text of every user message of a recorded request, one entry per message. */
export function userTexts(request: RecordedRequest): string[] {
  return request.context.messages
    .filter((message) => message.role === "user")
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : message.content.map((block) => (block.type === "text" ? block.text : `[image]`)).join("|"),
    );
}

/** Roles of the messages of a recorded request. */
export function requestRoles(request: RecordedRequest): string[] {
  return request.context.messages.map((message) => message.role);
}

/** The text of an agent message (text blocks joined), or "" . */
export function messageText(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : "")).join("");
}

/** The final tool-call chunks (status finished/failed) of the stream, in emission order. */
export function resolvedToolChunks(events: readonly RuntimeEvent[]): StreamToolCallChunk[] {
  return events.flatMap((event) =>
    event.type === "stream.resp" && event.payload.chunk.kind === "tool_call" && (event.payload.chunk.status === "finished" || event.payload.chunk.status === "failed")
      ? [event.payload.chunk]
      : [],
  );
}

/** The terminal `session.status` payload. */
export function terminalStatus(events: readonly RuntimeEvent[]) {
  const last = events[events.length - 1];
  if (!last || last.type !== "session.status") throw new Error("last event is not a session.status");
  return last.payload;
}

/**
 * Counts real Node timers created while it is installed and not yet fired or
 * cleared. Wraps `globalThis.setTimeout`/`clearTimeout` (code looks them up at
 * call time, so the loop's grace timers are seen too). `restore()` puts the
 * originals back.
 */
export function trackTimers(): { pending(): number; restore(): void } {
  const originalSet = globalThis.setTimeout;
  const originalClear = globalThis.clearTimeout;
  const live = new Set<unknown>();
  globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = originalSet(
      (...callArgs: unknown[]) => {
        live.delete(handle);
        fn(...callArgs);
      },
      ms,
      ...args,
    );
    live.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    live.delete(handle);
    originalClear(handle);
  }) as typeof clearTimeout;
  return {
    pending: () => live.size,
    restore: () => {
      globalThis.setTimeout = originalSet;
      globalThis.clearTimeout = originalClear;
    },
  };
}
