import { createAssistantMessageEventStream, type AssistantMessage, type Model } from "@mariozechner/pi-ai";
import { Agent, runAgentLoop, type AgentEvent } from "@turnkit/agent-loop";
import { emptyUsage } from "@turnkit/agent-loop/internal";
import {
  abortListenerCount,
  createScriptedModel,
  createVirtualClock,
  errorAfter,
  hang,
  response,
  toolCall,
  userMessage,
  type ScriptEntry,
} from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import type { LlmRetryOptions } from "../../src/call-stack/llm-config.js";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import { createOverflowRecoveryState, withOverflowRecovery } from "../../src/call-stack/overflow-recovery.js";
import { LlmTimeoutError } from "../../src/call-stack/stream-errors.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { userContext } from "../support/user-context.js";

const model = { id: "m", api: "test", provider: "test" } as Model<any>;

/** A provider that never answers and records the signal of each request. */
function silentProvider(): StreamFn & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  const fn = ((_model, _context, options) => {
    signals.push(options!.signal!);
    return createAssistantMessageEventStream();
  }) as StreamFn & { signals: AbortSignal[] };
  fn.signals = signals;
  return fn;
}

describe("the stream timeouts' request signal", () => {
  it("under the transport retry is the attempt's own signal, aborted by the timeout, and fresh for the next attempt", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 0, clock, env: {} });
    const caller = new AbortController();
    const stream = await withLlmRetry(
      timed,
      { maxRetries: 1, baseDelayMs: 10, maxDelayMs: 10 },
      { clock, random: () => 0 },
    )(model, userContext(), {
      signal: caller.signal,
    });
    await clock.advance(100);
    expect(provider.signals).toHaveLength(1);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(LlmTimeoutError.isInstance(provider.signals[0]!.reason)).toBe(true);
    await clock.advance(10);
    expect(provider.signals).toHaveLength(2);
    expect(provider.signals[1]!.aborted).toBe(false);
    expect(provider.signals[1]).not.toBe(provider.signals[0]);
    const reason = new Error("run stopped");
    caller.abort(reason);
    expect(provider.signals[1]!.aborted).toBe(true);
    expect(provider.signals[1]!.reason).toBe(reason);
    expect((await stream.result()).stopReason).toBe("aborted");
    expect(caller.signal.reason).not.toBeInstanceOf(LlmTimeoutError);
  });

  it("under the transport retry gets no listener from the layers, reaches the provider at once with the caller's reason, and leaves none behind", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 100, clock, env: {} });
    const caller = new AbortController();
    const stream = await withLlmRetry(timed, { maxRetries: 1 }, { clock, random: () => 0 })(model, userContext(), {
      signal: caller.signal,
    });
    const attemptSignal = provider.signals[0]!;
    // The timeouts layer is told of the caller's abort by the retry layer's link, not by a listener of its own.
    expect(abortListenerCount(attemptSignal)).toBe(0);
    expect(abortListenerCount(caller.signal)).toBe(1);
    const reason = new Error("host stopped the turn");
    caller.abort(reason);
    expect(attemptSignal.aborted).toBe(true);
    expect(attemptSignal.reason).toBe(reason);
    expect(await stream.result()).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
    expect(provider.signals).toHaveLength(1);
    expect(clock.pendingCount()).toBe(0);
  });

  it("a request after a timed-out one, with the same caller signal, gets a live signal of its own", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 0, clock, env: {} });
    const retrying = withLlmRetry(timed, { maxRetries: 0 }, { clock, random: () => 0 });
    const caller = new AbortController();
    const first = await retrying(model, userContext(), { signal: caller.signal });
    await clock.advance(100);
    expect((await first.result()).errorMessage).toMatch(/first_event timeout/);
    expect(abortListenerCount(caller.signal)).toBe(0);
    const second = await retrying(model, userContext(), { signal: caller.signal });
    expect(provider.signals).toHaveLength(2);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(provider.signals[1]!.aborted).toBe(false);
    caller.abort();
    expect(provider.signals[1]!.aborted).toBe(true);
    expect((await second.result()).stopReason).toBe("aborted");
    expect(abortListenerCount(caller.signal)).toBe(0);
  });

  it("a stream that ends normally leaves no listener on the caller's signal and its attempt signal unaborted", async () => {
    const clock = createVirtualClock();
    const signals: AbortSignal[] = [];
    const provider: StreamFn = (_model, _context, options) => {
      signals.push(options!.signal!);
      const stream = createAssistantMessageEventStream();
      const message = {
        role: "assistant",
        content: [],
        api: "test",
        provider: "test",
        model: "m",
        usage: emptyUsage(),
        stopReason: "stop",
        timestamp: 0,
      } as const;
      queueMicrotask(() => stream.push({ type: "done", reason: "stop", message: message as never }));
      return stream;
    };
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 100, clock, env: {} });
    const caller = new AbortController();
    const stream = await withLlmRetry(timed, {}, { clock, random: () => 0 })(model, userContext(), {
      signal: caller.signal,
    });
    expect((await stream.result()).stopReason).toBe("stop");
    expect(abortListenerCount(caller.signal)).toBe(0);
    expect(signals[0]!.aborted).toBe(false);
    expect(clock.pendingCount()).toBe(0);
    caller.abort();
    expect(signals[0]!.aborted).toBe(false);
  });

  it("on its own never aborts the caller's signal: the request gets a linked one", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const caller = new AbortController();
    const stream = await withStreamTimeouts(provider, {
      firstEventTimeoutMs: 100,
      streamIdleTimeoutMs: 0,
      clock,
      env: {},
    })(model, userContext(), {
      signal: caller.signal,
    });
    await clock.advance(100);
    expect((await stream.result()).errorMessage).toMatch(/first_event timeout/);
    expect(provider.signals[0]).not.toBe(caller.signal);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
  });
});

/** The scripted provider under the timeouts and retry layers (and overflow recovery); the provider notes when its signal fires. */
function loopCallStack(script: ScriptEntry[], options: { retry?: LlmRetryOptions | false; overflow?: boolean } = {}) {
  const scripted = createScriptedModel(script);
  const log: string[] = [];
  const signals: AbortSignal[] = [];
  const provider: StreamFn = (model, context, requestOptions) => {
    const signal = requestOptions!.signal!;
    const index = signals.push(signal) - 1;
    signal.addEventListener("abort", () => log.push(`provider signal ${index} aborted: ${reasonName(signal.reason)}`), {
      once: true,
    });
    return scripted.streamFn(model, context, requestOptions);
  };
  const clock = createVirtualClock();
  const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 1000, streamIdleTimeoutMs: 1000, clock, env: {} });
  let streamFn: StreamFn = withLlmRetry(timed, options.retry ?? { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 10 }, {
    clock,
    random: () => 0,
  });
  const recoverSignals: (AbortSignal | undefined)[] = [];
  if (options.overflow) {
    streamFn = withOverflowRecovery(streamFn, {
      state: createOverflowRecoveryState(),
      recover: ({ context, signal }) => {
        recoverSignals.push(signal);
        return { ...context, messages: context.messages.slice(-1) };
      },
    });
  }
  return { streamFn, clock, log, signals, recoverSignals, scripted };
}

function reasonName(reason: unknown): string {
  return reason instanceof Error || reason instanceof DOMException
    ? `${reason.name}: ${reason.message}`
    : String(reason);
}

function eventName(event: AgentEvent): string {
  if (event.type === "message_update") return `${event.type}:${event.assistantMessageEvent.type}`;
  if (event.type === "message_end") return `${event.type}:${event.message.role}`;
  return event.type;
}

/** Runs an Agent on `script` through the call stack; `listener` may abort. Events and provider aborts are logged in order. */
async function agentRun(
  script: ScriptEntry[],
  options: Parameters<typeof loopCallStack>[1] = {},
  listener?: (event: AgentEvent, agent: Agent) => void,
) {
  const stack = loopCallStack(script, options);
  const agent = new Agent({ initialState: { model: stack.scripted.model, tools: [] }, streamFn: stack.streamFn });
  agent.subscribe((event) => {
    stack.log.push(eventName(event));
    listener?.(event, agent);
  });
  const run = agent.prompt("go");
  const signal = agent.signal!;
  await run;
  return { stack, signal, last: agent.state.messages.at(-1) as AssistantMessage };
}

describe("the call stack under the agent loop", () => {
  it("a run of three requests ends as the script says and leaves nothing on the run's signal", async () => {
    const run = await agentRun([
      response([toolCall("missing")]),
      response([toolCall("missing")]),
      response("all done"),
    ]);
    expect(run.last.stopReason).toBe("stop");
    expect(run.stack.signals).toHaveLength(3);
    expect(run.stack.signals.every((signal) => !signal.aborted)).toBe(true);
    expect(abortListenerCount(run.signal)).toBe(0);
  });

  it("an abort on the first streamed word keeps that word, and reaches the provider with an AbortError", async () => {
    // One event per millisecond, as a provider's chunks arrive: the abort reaches the provider before its next word.
    const run = await agentRun([response("Let me check that for you", { eventDelayMs: 1 })], {}, (event, agent) => {
      if (
        event.type === "message_update" &&
        event.assistantMessageEvent.type === "text_delta" &&
        !agent.signal!.aborted
      )
        agent.abort();
    });
    expect(run.last.stopReason).toBe("aborted");
    expect(run.last.content).toEqual([{ type: "text", text: "Let" }]);
    const abortedAt = run.stack.log.findIndex((entry) => entry.startsWith("provider signal 0 aborted: AbortError"));
    expect(abortedAt).toBeGreaterThan(run.stack.log.indexOf("message_update:text_delta"));
    expect(run.stack.log.slice(-3)).toEqual(["message_end:assistant", "turn_end", "agent_end"]);
  });

  it("an abort while the provider is silent ends the run aborted, with the retry on and off", async () => {
    for (const retry of [undefined, false as const]) {
      const run = await agentRun([hang()], { retry }, (event, agent) => {
        if (event.type === "message_end" && event.message.role === "user") setImmediate(() => agent.abort());
      });
      expect(run.last.stopReason).toBe("aborted");
      expect(run.stack.signals[0]!.aborted).toBe(true);
      expect(abortListenerCount(run.signal)).toBe(0);
    }
  });

  it("a sink that fails mid-stream: the loop's give-up reaches the provider, and the run's signal stays unfired", async () => {
    const stack = loopCallStack([response("Let me check that for you")]);
    const runSignal = new AbortController().signal;
    await runAgentLoop(
      [userMessage("go")],
      { systemPrompt: "", messages: [], tools: [] },
      { model: stack.scripted.model, convertToLlm: (all) => all as never },
      (event) => {
        stack.log.push(eventName(event));
        if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
          throw new Error("sink failed");
      },
      runSignal,
      stack.streamFn,
    );
    expect(stack.log).toContain("provider signal 0 aborted: AbortError: This operation was aborted");
    expect(stack.log.indexOf("provider signal 0 aborted: AbortError: This operation was aborted")).toBeGreaterThan(
      stack.log.indexOf("message_update:text_delta"),
    );
    expect(runSignal.aborted).toBe(false);
    expect(abortListenerCount(runSignal)).toBe(0);
  });

  it("a failure before any output is retried on a fresh signal, and a later abort reaches the retry", async () => {
    const script: ScriptEntry[] = [
      errorAfter(1, "503 Service Unavailable"),
      hang({ afterEvents: 3, response: "Let me check" }),
    ];
    const stack = loopCallStack(script);
    const agent = new Agent({ initialState: { model: stack.scripted.model, tools: [] }, streamFn: stack.streamFn });
    agent.subscribe((event) => {
      stack.log.push(eventName(event));
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") agent.abort();
    });
    const run = agent.prompt("go");
    for (let wait = 0; wait < 20; wait++) await stack.clock.advance(10);
    await run;
    expect(stack.signals).toHaveLength(2);
    expect(stack.signals[1]).not.toBe(stack.signals[0]);
    expect(stack.log).toContain("provider signal 1 aborted: AbortError: This operation was aborted");
    expect(stack.log.indexOf("provider signal 1 aborted: AbortError: This operation was aborted")).toBeGreaterThan(
      stack.log.indexOf("message_update:text_delta"),
    );
    expect((agent.state.messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
  });

  it("overflow recovery hands its hook the request's live signal, and the resend answers", async () => {
    const overflow = errorAfter(0, "prompt is too long: 300000 tokens > 200000 maximum");
    const run = await agentRun([overflow, response("fits now")], { overflow: true });
    expect(run.last.stopReason).toBe("stop");
    expect(run.stack.recoverSignals).toHaveLength(1);
    expect(run.stack.recoverSignals[0]).toBeDefined();
    expect(run.stack.recoverSignals[0]!.aborted).toBe(false);
    expect(abortListenerCount(run.signal)).toBe(0);
  });
});

describe("many requests on one caller signal", () => {
  it("50 requests through the retry and timeout layers: no process warning, each aborts, no listener left", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const clock = createVirtualClock();
      const caller = new AbortController();
      const streams = await Promise.all(
        Array.from({ length: 50 }, () => {
          const scripted = createScriptedModel([hang({ afterEvents: 1, response: "never ends" })], { clock });
          const timed = withStreamTimeouts(scripted.streamFn, {
            firstEventTimeoutMs: 60_000,
            streamIdleTimeoutMs: 60_000,
            clock,
            env: {},
          });
          const layered = withLlmRetry(timed, { maxRetries: 1 }, { clock, random: () => 0 });
          return layered(scripted.model, userContext(), { signal: caller.signal });
        }),
      );
      expect(abortListenerCount(caller.signal)).toBe(1);
      caller.abort();
      const results = await Promise.all(streams.map((stream) => stream.result()));
      expect(results.map((message) => message.stopReason)).toEqual(Array(50).fill("aborted"));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
      expect(abortListenerCount(caller.signal)).toBe(0);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
