import type { AssistantMessage } from "@mariozechner/pi-ai";
import { Agent, followLoopRequestAbort, runAgentLoop, type AgentEvent, type StreamFn } from "@turnkit/agent-loop";
import {
  abortListenerCount,
  createMicrotaskClock,
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
import { withOverflowRecovery, createOverflowRecoveryState } from "../../src/call-stack/overflow-recovery.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";

/**
 * The call stack under the agent loop, sent each request either with the
 * loop's request signal (a stream function as any host writes it) or with
 * the run's own signal and the loop's request abort (one declared with
 * `followLoopRequestAbort`, as the turn runner's is). Both must behave the
 * same, to the microtask: the same events at the same ticks, the same
 * aborts reaching the provider at the same ticks with the same reasons.
 */
type Mode = "request signal" | "request abort";

interface StackOptions {
  retry?: LlmRetryOptions | false;
  overflow?: boolean;
}

/** The scripted provider under the timeouts and retry layers; the provider notes when its signal fires. */
function callStack(script: ScriptEntry[], mode: Mode, options: StackOptions, note: (entry: string) => void) {
  const scripted = createScriptedModel(script);
  const signals: AbortSignal[] = [];
  const listenersAtSend: number[] = [];
  const provider: StreamFn = (model, context, requestOptions) => {
    const signal = requestOptions!.signal!;
    const known = signals.includes(signal);
    // Listeners of the layers above on the signal, without this provider's own note from an earlier request.
    listenersAtSend.push(abortListenerCount(signal) - (known ? 1 : 0));
    if (known) return scripted.streamFn(model, context, requestOptions);
    signals.push(signal);
    const index = signals.length - 1;
    signal.addEventListener("abort", () => note(`provider signal ${index} aborted: ${reasonName(signal.reason)}`), {
      once: true,
    });
    return scripted.streamFn(model, context, requestOptions);
  };
  const clock = createVirtualClock();
  const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 1000, streamIdleTimeoutMs: 1000, clock, env: {} });
  let stack: StreamFn = withLlmRetry(timed, options.retry ?? { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 10 }, {
    clock,
    random: () => 0,
  });
  const recoverSignals: (AbortSignal | undefined)[] = [];
  if (options.overflow) {
    stack = withOverflowRecovery(stack, {
      state: createOverflowRecoveryState(),
      recover: ({ context, signal }) => {
        recoverSignals.push(signal);
        return { ...context, messages: context.messages.slice(-1) };
      },
    });
  }
  const received: (AbortSignal | undefined)[] = [];
  const plain: StreamFn = (model, context, requestOptions) => {
    received.push(requestOptions?.signal);
    return stack(model, context, requestOptions);
  };
  const streamFn = mode === "request abort" ? followLoopRequestAbort(plain) : plain;
  return { streamFn, clock, signals, listenersAtSend, received, recoverSignals, scripted };
}

function reasonName(reason: unknown): string {
  return reason instanceof Error || reason instanceof DOMException
    ? `${reason.name}: ${reason.message}`
    : String(reason);
}

function stamp(event: AgentEvent, tick: number): string {
  const detail =
    event.type === "message_update"
      ? `:${event.assistantMessageEvent.type}`
      : event.type === "message_end"
        ? `:${event.message.role}`
        : "";
  return `${event.type}${detail}@${tick}`;
}

/** Runs an Agent on `script` through the call stack; `listener` may abort. Everything seen is stamped with its microtask tick. */
async function agentRun(
  mode: Mode,
  script: ScriptEntry[],
  options: StackOptions = {},
  listener?: (event: AgentEvent, agent: Agent) => void,
) {
  const log: string[] = [];
  const clock = createMicrotaskClock();
  const note = (entry: string) => log.push(`${entry}@${clock.now()}`);
  const stack = callStack(script, mode, options, note);
  const agent = new Agent({ initialState: { model: stack.scripted.model, tools: [] }, streamFn: stack.streamFn });
  const listenerCounts: number[] = [];
  agent.subscribe((event) => {
    log.push(stamp(event, clock.now()));
    if (event.type === "message_update") listenerCounts.push(abortListenerCount(agent.signal!));
    listener?.(event, agent);
  });
  const runSignal = (): AbortSignal => agent.signal!;
  const run = agent.prompt("go");
  const signal = runSignal();
  await run;
  clock.stop();
  const last = agent.state.messages.at(-1) as AssistantMessage;
  return { log, stack, last, signal, listenerCounts, after: abortListenerCount(signal) };
}

async function bothModes<T extends { log: string[] }>(run: (mode: Mode) => Promise<T>): Promise<Record<Mode, T>> {
  const withSignal = await run("request signal");
  const withAbort = await run("request abort");
  expect(withAbort.log).toEqual(withSignal.log);
  return { "request signal": withSignal, "request abort": withAbort };
}

describe("the call stack under the loop: with the loop's request abort as with its request signal", () => {
  it("a run of three requests: the same events at the same ticks, one attempt signal, one listener on the run's signal", async () => {
    const script: ScriptEntry[] = [
      response([toolCall("missing")]),
      response([toolCall("missing")]),
      response("all done"),
    ];
    const runs = await bothModes((mode) => agentRun(mode, script));
    const followed = runs["request abort"];
    expect(followed.last.stopReason).toBe("stop");
    // The loop sends the run's own signal, and every request goes out on one attempt signal.
    expect(followed.stack.received).toEqual([followed.signal, followed.signal, followed.signal]);
    expect(followed.stack.signals).toHaveLength(1);
    expect(followed.stack.signals[0]!.aborted).toBe(false);
    // The stream timeouts took the attempt signal over while it was sent: no layer listens on it.
    expect(followed.stack.listenersAtSend).toEqual([0, 0, 0]);
    expect(new Set(followed.listenerCounts)).toEqual(new Set([1]));
    expect(followed.after).toBe(0);
    const plain = runs["request signal"];
    expect(plain.stack.received.every((signal) => signal !== plain.signal)).toBe(true);
  });

  it("an abort on the first streamed word keeps that word, and reaches the provider at the same tick with the run's reason", async () => {
    const abortAtFirstDelta = (event: AgentEvent, agent: Agent) => {
      if (
        event.type === "message_update" &&
        event.assistantMessageEvent.type === "text_delta" &&
        !agent.signal!.aborted
      )
        agent.abort();
    };
    const runs = await bothModes((mode) =>
      agentRun(mode, [response("Let me check that for you")], {}, abortAtFirstDelta),
    );
    const withoutTime = ({ timestamp: _, ...message }: AssistantMessage) => message;
    expect(withoutTime(runs["request abort"].last)).toEqual(withoutTime(runs["request signal"].last));
    expect(runs["request abort"].last.content).toEqual(runs["request signal"].last.content);
    expect(runs["request abort"].last.content).toEqual([{ type: "text", text: "Let me check" }]);
    expect(runs["request abort"].last.stopReason).toBe("aborted");
    expect(runs["request abort"].log.some((entry) => entry.startsWith("provider signal 0 aborted: AbortError"))).toBe(
      true,
    );
  });

  it("an abort while the provider is silent, with the retry on and off", async () => {
    for (const retry of [undefined, false as const]) {
      const abortAtUserMessage = (event: AgentEvent, agent: Agent) => {
        if (event.type === "message_end" && event.message.role === "user")
          queueMicrotask(() => queueMicrotask(() => queueMicrotask(() => agent.abort())));
      };
      const runs = await bothModes((mode) => agentRun(mode, [hang()], { retry }, abortAtUserMessage));
      expect(runs["request abort"].last.stopReason).toBe("aborted");
      expect(runs["request abort"].after).toBe(0);
    }
  });

  it("a sink that fails mid-stream: the loop's give-up reaches the provider at the same tick, and the run's signal stays unfired", async () => {
    const runs = await bothModes(async (mode) => {
      const log: string[] = [];
      const clock = createMicrotaskClock();
      const stack = callStack([response("Let me check that for you")], mode, {}, (entry) =>
        log.push(`${entry}@${clock.now()}`),
      );
      const runSignal = new AbortController().signal;
      await runAgentLoop(
        [userMessage("go")],
        { systemPrompt: "", messages: [], tools: [] },
        { model: stack.scripted.model, convertToLlm: (all) => all as never },
        (event) => {
          log.push(stamp(event, clock.now()));
          if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
            throw new Error("sink failed");
        },
        runSignal,
        stack.streamFn,
      );
      clock.stop();
      return { log, runSignal, stack };
    });
    const followed = runs["request abort"];
    expect(
      followed.log.some((entry) =>
        entry.startsWith("provider signal 0 aborted: AbortError: This operation was aborted"),
      ),
    ).toBe(true);
    expect(followed.runSignal.aborted).toBe(false);
    expect(abortListenerCount(followed.runSignal)).toBe(0);
  });

  it("a failure before any output is retried on a fresh attempt signal, and a later abort reaches the retry", async () => {
    const runs = await bothModes(async (mode) => {
      const script: ScriptEntry[] = [
        errorAfter(1, "503 Service Unavailable"),
        hang({ afterEvents: 3, response: "Let me check" }),
      ];
      const log: string[] = [];
      const note = (entry: string) => log.push(entry);
      const stack = callStack(script, mode, {}, note);
      const agent = new Agent({ initialState: { model: stack.scripted.model, tools: [] }, streamFn: stack.streamFn });
      agent.subscribe((event) => {
        log.push(stamp(event, 0));
        if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") agent.abort();
      });
      const run = agent.prompt("go");
      for (let wait = 0; wait < 20; wait++) await stack.clock.advance(10);
      await run;
      return { log, stack, last: agent.state.messages.at(-1) as AssistantMessage };
    });
    const followed = runs["request abort"];
    expect(followed.stack.signals).toHaveLength(2);
    expect(followed.log).toContain("provider signal 0 aborted: AbortError: This operation was aborted");
    expect(followed.log).toContain("provider signal 1 aborted: AbortError: This operation was aborted");
    expect(followed.log.indexOf("provider signal 1 aborted: AbortError: This operation was aborted")).toBeGreaterThan(
      followed.log.indexOf("message_update:text_delta@0"),
    );
    expect(followed.last.stopReason).toBe("aborted");
  });

  it("overflow recovery hands its hook the loop's request signal, and the resend follows the loop's request abort", async () => {
    const overflow = errorAfter(0, "prompt is too long: 300000 tokens > 200000 maximum");
    const runs = await bothModes(async (mode) => {
      const result = await agentRun(mode, [overflow, response("fits now")], { overflow: true });
      const [recoverSignal] = result.stack.recoverSignals;
      return {
        ...result,
        recoverSignalIsRunSignal: recoverSignal === result.signal,
        recoverSignalAborted: recoverSignal?.aborted,
      };
    });
    for (const run of Object.values(runs)) {
      expect(run.last.stopReason).toBe("stop");
      // The resend follows the loop's abort too: nothing but the run's own listener is on the run's signal while it streams.
      expect(new Set(run.listenerCounts)).toEqual(new Set([1]));
      expect(run.stack.recoverSignals).toHaveLength(1);
      expect(run.recoverSignalIsRunSignal).toBe(false);
      expect(run.recoverSignalAborted).toBe(false);
    }
  });
});
