/**
 * The model call stack over real HTTP, for the tests that drive it: pi-ai's
 * own openai-completions provider against a fake chat-completions server on
 * 127.0.0.1 (closed after each test), backoff on a virtual clock.
 */
import type { Context, Model } from "@mariozechner/pi-ai";
import { afterEach } from "vitest";
import { composeStreamFn } from "../../src/call-stack/option-layers.js";
import type { LlmConfig, LlmRetryNotification, LlmRetryOptions } from "../../src/call-stack/llm-config.js";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import {
  createOverflowRecoveryState,
  withOverflowRecovery,
  type OverflowRecover,
} from "../../src/call-stack/overflow-recovery.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { fakeModel, startFakeOpenAIServer, type FakeOpenAIServer, type ScriptStep } from "./fake-openai-server.js";
import { collectStream, createVirtualClock, type VirtualClock } from "@turnkit/agent-loop/testing";
import { userContext } from "./user-context.js";

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Starts a fake server with `script`; it is closed after the test. */
export async function serve(...script: ScriptStep[]): Promise<FakeOpenAIServer> {
  const server = await startFakeOpenAIServer(script);
  servers.push(server);
  return server;
}

/** How {@link callStack} builds the stack. */
export interface StackOptions {
  llm?: Omit<Partial<LlmConfig>, "model">;
  retry?: LlmRetryOptions | false;
  firstEventTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
  recover?: OverflowRecover;
  clock?: VirtualClock;
  random?: () => number;
  /** Changes to the fake model (another pi-ai API against the same server, for its SDK's error texts). */
  model?: Partial<Model<any>>;
}

/** The call stack in its documented order: overflow → retry → timeouts → composed options → pi-ai. */
export function callStack(server: FakeOpenAIServer, options: StackOptions = {}) {
  const model = { ...fakeModel(server.baseUrl), ...options.model } as Model<any>;
  const clock = options.clock ?? createVirtualClock({ autoAdvance: true });
  const notifications: LlmRetryNotification[] = [];
  const composed = composeStreamFn({ model, ...options.llm });
  const timed = withStreamTimeouts(composed, {
    firstEventTimeoutMs: options.firstEventTimeoutMs ?? 5_000,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? 5_000,
    env: {},
  });
  const retryOptions =
    options.retry === false
      ? false
      : { ...options.retry, observer: (n: LlmRetryNotification) => void notifications.push(n) };
  const retried = withLlmRetry(timed, retryOptions, { clock, random: options.random ?? (() => 0.5) });
  const streamFn = options.recover
    ? withOverflowRecovery(retried, { recover: options.recover, state: createOverflowRecoveryState() })
    : retried;
  const run = (context: Context = userContext(), signal?: AbortSignal, extra: Record<string, unknown> = {}) =>
    collectStream(streamFn(model, context, { apiKey: "sk-test-key", signal, ...extra }));
  return { run, clock, notifications };
}
