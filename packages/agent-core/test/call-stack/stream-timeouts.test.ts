import { spawn } from "node:child_process";
import {
  createAssistantMessageEventStream,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
} from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { classifyError, getAttachedClassifiedError } from "../../src/call-stack/classify-error.js";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import { resolveStreamTimeouts, withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import type { StreamFn, StreamFnOptions } from "../../src/call-stack/stream-fn.js";
import {
  assistantMessage,
  collectStream,
  createScriptedModel,
  createVirtualClock,
  hang,
} from "@turnkit/agent-loop/testing";
import { receiveOptions } from "../support/received-options.js";
import { manualProvider } from "../support/manual-provider.js";
import { userContext } from "../support/user-context.js";

const { model } = createScriptedModel();
const context = userContext();

/** Reads events until one matches, returning the iterator to continue from. */
async function readUntil(stream: AsyncIterable<AssistantMessageEvent>, type: AssistantMessageEvent["type"]) {
  const iterator = stream[Symbol.asyncIterator]();
  const seen: string[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) throw new Error(`stream ended before ${type}; saw ${seen.join(",")}`);
    seen.push(next.value.type);
    if (next.value.type === type) return { iterator, seen };
  }
}

/** How long vitest waits for a test that spawns a child process: starting tsx alone took over 20 s on a loaded machine. */
const CHILD_PROCESS_TEST_TIMEOUT_MS = 180_000;

describe("resolveStreamTimeouts", () => {
  it("takes the input, then the env, then the default; 0 is kept", () => {
    const env = { TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS: "5000", TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS: "6000" };
    expect(resolveStreamTimeouts({}, {})).toEqual({
      firstEventTimeoutMs: TURN_DEFAULTS.llmFirstEventTimeoutMs,
      streamIdleTimeoutMs: TURN_DEFAULTS.llmStreamIdleTimeoutMs,
    });
    expect(TURN_DEFAULTS.llmFirstEventTimeoutMs).toBe(120_000);
    expect(TURN_DEFAULTS.llmStreamIdleTimeoutMs).toBe(300_000);
    expect(resolveStreamTimeouts({}, env)).toEqual({ firstEventTimeoutMs: 5000, streamIdleTimeoutMs: 6000 });
    expect(resolveStreamTimeouts({ firstEventTimeoutMs: 10, streamIdleTimeoutMs: 0 }, env)).toEqual({
      firstEventTimeoutMs: 10,
      streamIdleTimeoutMs: 0,
    });
    expect(resolveStreamTimeouts({}, { TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS: "0" }).firstEventTimeoutMs).toBe(0);
  });

  it("ignores a malformed env value and rejects a malformed input", () => {
    expect(resolveStreamTimeouts({}, { TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS: "soon" }).streamIdleTimeoutMs).toBe(
      TURN_DEFAULTS.llmStreamIdleTimeoutMs,
    );
    expect(() => resolveStreamTimeouts({ firstEventTimeoutMs: -1 }, {})).toThrow(
      expect.objectContaining({ code: "invalid_turn_input" }),
    );
    expect(() => resolveStreamTimeouts({ streamIdleTimeoutMs: Number.NaN }, {})).toThrow(
      expect.objectContaining({ code: "invalid_turn_input" }),
    );
  });
});

describe("withStreamTimeouts", () => {
  it("never throws, also for a stream function answering a thenable whose then throws: the stream ends with that error", async () => {
    const thenable = {
      then() {
        throw new Error("connection pool closed");
      },
    };
    for (const limits of [{}, { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 }]) {
      const stream = withStreamTimeouts((() => thenable) as unknown as StreamFn, { ...limits, env: {} })(
        model,
        context,
        {},
      );
      const result = await collectStream(stream);
      expect(result.types).toEqual(["error"]);
      expect(result.final).toMatchObject({ stopReason: "error", errorMessage: "connection pool closed" });
    }
  });

  it("ends a silent request with a retryable first-event timeout and aborts it", async () => {
    const clock = createVirtualClock();
    const inner = receiveOptions(createScriptedModel([hang()]).streamFn);
    const stream = withStreamTimeouts(inner.streamFn, {
      firstEventTimeoutMs: 100,
      streamIdleTimeoutMs: 1000,
      clock,
      env: {},
    })(model, context, {});
    await clock.advance(99);
    expect(inner.received[0]?.signal?.aborted).toBe(false);
    await clock.advance(1);
    const result = await collectStream(stream);
    expect(result.types).toEqual(["error"]);
    expect(result.final.stopReason).toBe("error");
    expect(result.final.errorMessage).toMatch(/no first event within 100 ms/);
    expect(getAttachedClassifiedError(result.final)).toMatchObject({ code: "timeout", retryable: true });
    expect(inner.received[0]?.signal?.aborted).toBe(true);
    expect(clock.pendingCount()).toBe(0);
  });

  it("ends a stalled stream with an idle timeout that keeps the partial text", async () => {
    const clock = createVirtualClock();
    const inner = receiveOptions(createScriptedModel([hang({ afterEvents: 3, response: "Hel" })]).streamFn);
    const stream = await withStreamTimeouts(inner.streamFn, {
      firstEventTimeoutMs: 100,
      streamIdleTimeoutMs: 500,
      clock,
      env: {},
    })(model, context, {});
    const { iterator, seen } = await readUntil(stream, "text_delta");
    expect(seen).toEqual(["start", "text_start", "text_delta"]);
    await clock.advance(200); // past the first-event limit: no longer armed
    await clock.advance(299);
    expect(inner.received[0]?.signal?.aborted).toBe(false);
    await clock.advance(1);
    const next = await iterator.next();
    expect(next.value).toMatchObject({ type: "error", reason: "error" });
    const final = await stream.result();
    expect(final.errorMessage).toMatch(/no event within 500 ms \(idle timeout\)/);
    expect(final.content).toEqual([{ type: "text", text: "Hel" }]);
    expect(classifyError(final)).toMatchObject({ code: "timeout", retryable: true });
  });

  it("reports a caller abort as aborted, never as a timeout", async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const inner = createScriptedModel([hang()]).streamFn;
    const stream = withStreamTimeouts(inner, { firstEventTimeoutMs: 100, clock, env: {} })(model, context, {
      signal: controller.signal,
    });
    await clock.advance(50);
    controller.abort();
    await clock.advance(1000);
    const result = await collectStream(stream);
    expect(result.final.stopReason).toBe("aborted");
    expect(result.final.errorMessage).not.toMatch(/timed out/);
    expect(classifyError(result.final).aborted).toBe(true);
    expect(clock.pendingCount()).toBe(0);
  });

  it("0 disables both watchdogs", async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const inner = createScriptedModel([hang()]).streamFn;
    const stream = withStreamTimeouts(inner, { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0, clock, env: {} })(
      model,
      context,
      { signal: controller.signal },
    );
    await clock.advance(10 * 60 * 60 * 1000);
    expect(clock.scheduledDelays()).toEqual([]);
    controller.abort();
    expect((await collectStream(stream)).final.stopReason).toBe("aborted");
  });

  it("clears its timers when the stream completes", async () => {
    const clock = createVirtualClock();
    const inner = createScriptedModel(["ab"]).streamFn;
    const result = await collectStream(withStreamTimeouts(inner, { clock, env: {} })(model, context, {}));
    expect(result.text).toBe("ab");
    expect(result.final.stopReason).toBe("stop");
    // One timer for the whole request: the first-event timer, kept after the first event as the idle check.
    expect(clock.scheduledDelays()).toEqual([TURN_DEFAULTS.llmFirstEventTimeoutMs]);
    expect(clock.pendingCount()).toBe(0);
  });

  it("the timeout error names the option to raise and its current value", async () => {
    const clock = createVirtualClock();
    const first = withStreamTimeouts(createScriptedModel([hang()]).streamFn, {
      firstEventTimeoutMs: 100,
      streamIdleTimeoutMs: 0,
      clock,
      env: {},
    })(model, context, {});
    await clock.advance(100);
    expect((await collectStream(first)).final.errorMessage).toContain(
      "Raise llm.firstEventTimeoutMs or TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS (now 100 ms), or set it to 0",
    );

    const idle = await withStreamTimeouts(createScriptedModel([hang({ afterEvents: 3, response: "Hel" })]).streamFn, {
      firstEventTimeoutMs: 0,
      streamIdleTimeoutMs: 700,
      clock,
      env: {},
    })(model, context, {});
    await readUntil(idle, "text_delta");
    await clock.advance(700);
    expect((await idle.result()).errorMessage).toContain(
      "Raise llm.streamIdleTimeoutMs or TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS (now 700 ms), or set it to 0",
    );
  });

  it("the idle timer is re-armed on every event: events spread over several idle windows never time out", async () => {
    const clock = createVirtualClock();
    const provider = manualProvider();
    const stream = await withStreamTimeouts(provider.streamFn, {
      firstEventTimeoutMs: 500,
      streamIdleTimeoutMs: 500,
      clock,
      env: {},
    })(model, context, {});
    const seen = collectStream(stream);
    // Eight events 400 ms apart: 3.2 s, more than six idle windows, never 500 ms of silence.
    for (let index = 0; index < 8; index++) {
      await provider.push(index === 0 ? "start" : "text_delta");
      await clock.advance(400);
    }
    await provider.push("done");
    const result = await seen;
    expect(result.final.stopReason).toBe("stop");
    expect(result.types.filter((type) => type === "text_delta")).toHaveLength(7);
    expect(provider.signal()?.aborted).toBe(false);
    expect(clock.pendingCount()).toBe(0);
  });

  it("after events spread over several windows, the idle timeout fires one window after the last event", async () => {
    const clock = createVirtualClock();
    const provider = manualProvider();
    const stream = await withStreamTimeouts(provider.streamFn, {
      firstEventTimeoutMs: 500,
      streamIdleTimeoutMs: 500,
      clock,
      env: {},
    })(model, context, {});
    const seen = collectStream(stream);
    for (let index = 0; index < 4; index++) {
      await provider.push(index === 0 ? "start" : "text_delta");
      await clock.advance(400);
    }
    // The last event came at 1200 ms; 400 ms of silence have passed.
    await clock.advance(99);
    expect(provider.signal()?.aborted).toBe(false);
    await clock.advance(1);
    const result = await seen;
    expect(clock.now()).toBe(1700);
    expect(result.final.errorMessage).toMatch(/no event within 500 ms \(idle timeout\)/);
    expect(provider.signal()?.aborted).toBe(true);
  });

  it.each(["first_event", "idle"] as const)(
    "the %s timeout releases a provider that ignores its signal: return() is called and not waited for",
    async (kind) => {
      const clock = createVirtualClock();
      const provider = stubbornProvider({ eventsBeforeSilence: kind === "idle" ? 1 : 0, returnSettles: false });
      const stream = await withStreamTimeouts(provider.streamFn, {
        firstEventTimeoutMs: 100,
        streamIdleTimeoutMs: 200,
        clock,
        env: {},
      })(model, context, {});
      if (kind === "idle") await readUntil(stream, "start");
      await clock.advance(kind === "idle" ? 200 : 100);
      const final = await stream.result();
      expect(final.errorMessage).toMatch(kind === "idle" ? /idle timeout/ : /first_event timeout/);
      expect(provider.signal()?.aborted).toBe(true); // it was asked, and ignored it
      expect(provider.returnCalls()).toBe(1);
      expect(clock.pendingCount()).toBe(0);
    },
  );

  it("a caller abort releases a provider that ignores its signal too", async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const provider = stubbornProvider({ eventsBeforeSilence: 0, returnSettles: true });
    const stream = await withStreamTimeouts(provider.streamFn, { firstEventTimeoutMs: 100, clock, env: {} })(
      model,
      context,
      { signal: controller.signal },
    );
    controller.abort();
    expect((await stream.result()).stopReason).toBe("aborted");
    expect(provider.returnCalls()).toBe(1);
    expect(provider.pendingNext()).toBe(false);
  });
});

describe("a released provider keeps nothing alive", () => {
  it(
    "a process whose provider ignores its signal exits after the first-event timeout",
    async () => {
      // The provider holds a referenced interval (its "connection") until return() is called:
      // without the release, the child process would never exit.
      const body = `
      import { withStreamTimeouts } from "./src/call-stack/stream-timeouts.ts";
      const keepAlive = setInterval(() => {}, 1000);
      let pending;
      const provider = () => ({
        [Symbol.asyncIterator]() { return this; },
        next: () => new Promise((resolve) => { pending = resolve; }),
        return: () => {
          clearInterval(keepAlive);
          pending?.({ done: true, value: undefined });
          console.log("released");
          return new Promise(() => {});
        },
      });
      const model = { id: "m", api: "openai-completions", provider: "test" };
      const armed = performance.now();
      process.on("exit", () => console.log("exited " + Math.round(performance.now() - armed) + " ms after the request"));
      const stream = withStreamTimeouts(provider, { firstEventTimeoutMs: 50, streamIdleTimeoutMs: 0, env: {} })(model, { messages: [] }, {});
      const final = await stream.result();
      console.log(final.errorMessage);
    `;
      // The child reports its own time from the request to its exit, so the bound holds however long
      // tsx takes to start it on a loaded machine; a child that never exits fails on the test's timeout.
      const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", body],
          {
            cwd: new URL("../..", import.meta.url),
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
        child.once("error", reject);
        child.once("close", (status) => resolve({ status, stdout, stderr }));
      });
      expect(result.stdout, result.stderr).toContain("released");
      expect(result.stdout).toContain("no first event within 50 ms");
      expect(result.status).toBe(0);
      const exitedAfterMs = Number(/exited (\d+) ms after the request/.exec(result.stdout)?.[1]);
      expect(exitedAfterMs).toBeLessThan(5_000);
    },
    CHILD_PROCESS_TEST_TIMEOUT_MS,
  );
});

/**
 * A provider that ignores its abort signal: after `eventsBeforeSilence`
 * events (a `start`) its `next()` never settles on its own. `return()`
 * settles the pending `next()` with `done`; its own promise settles only
 * with `returnSettles`.
 */
function stubbornProvider(config: { eventsBeforeSilence: number; returnSettles: boolean }) {
  let options: StreamFnOptions | undefined;
  let sent = 0;
  let returns = 0;
  let pending: ((result: IteratorResult<AssistantMessageEvent>) => void) | undefined;
  const iterator: AsyncIterableIterator<AssistantMessageEvent> = {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (sent < config.eventsBeforeSilence) {
        sent += 1;
        return Promise.resolve({
          done: false,
          value: { type: "start", partial: assistantMessage([], { timestamp: 0 }) },
        });
      }
      return new Promise((resolve) => {
        pending = resolve;
      });
    },
    return() {
      returns += 1;
      pending?.({ done: true, value: undefined });
      pending = undefined;
      return config.returnSettles ? Promise.resolve({ done: true, value: undefined }) : new Promise(() => {});
    },
  };
  const streamFn: StreamFn = (_model, _context, callOptions) => {
    options = callOptions;
    return iterator as unknown as ReturnType<StreamFn> & AssistantMessageEventStream;
  };
  return {
    streamFn,
    signal: () => options?.signal,
    returnCalls: () => returns,
    pendingNext: () => pending !== undefined,
  };
}
