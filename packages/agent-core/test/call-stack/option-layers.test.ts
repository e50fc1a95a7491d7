import { describe, expect, it } from "vitest";
import {
  composeStreamFn,
  withCacheRetention,
  withFetch,
  withHeaders,
  withHostMaxOutputTokens,
  withMaxTokens,
  withRequestTimeout,
} from "../../src/call-stack/option-layers.js";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../../src/errors.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { collectStream, createScriptedModel, reject, throwSync } from "@turnkit/agent-loop/testing";
import { receiveOptions } from "../support/received-options.js";
import { userContext } from "../support/user-context.js";

const { model } = createScriptedModel([], { model: { maxTokens: 8_000 } });
const context = userContext();

/** Calls `wrap(inner)` once with `options` and returns what the inner function received (functions included). */
async function optionsSeenBy(wrap: (inner: StreamFn) => StreamFn, options?: Record<string, unknown>, m = model) {
  const inner = receiveOptions(createScriptedModel(["ok"]).streamFn);
  await collectStream(wrap(inner.streamFn)(m, context, options));
  return inner.received[0];
}

describe("withHostMaxOutputTokens", () => {
  it("sends the smallest positive of host cap, request maxTokens and model.maxTokens", async () => {
    expect((await optionsSeenBy((f) => withHostMaxOutputTokens(f, 1_000)))?.maxTokens).toBe(1_000);
    expect((await optionsSeenBy((f) => withHostMaxOutputTokens(f, 1_000), { maxTokens: 500 }))?.maxTokens).toBe(500);
    expect((await optionsSeenBy((f) => withHostMaxOutputTokens(f, 1_000), { maxTokens: 5_000 }))?.maxTokens).toBe(
      1_000,
    );
    expect((await optionsSeenBy((f) => withHostMaxOutputTokens(f, 50_000)))?.maxTokens).toBe(8_000);
    expect(
      (await optionsSeenBy((f) => withHostMaxOutputTokens(f, 50_000), { maxTokens: 0 }, { ...model, maxTokens: 0 }))
        ?.maxTokens,
    ).toBe(50_000);
  });

  it.each([0, -5, 1.5, 1e21, 2 ** 53, Number.NaN])(
    "llm.maxTokens %s is refused when the turn is built, naming the field (1e21 would be sent as '1e+21')",
    (maxTokens) => {
      const scripted = createScriptedModel();
      expect(() => composeStreamFn({ model, streamFn: scripted.streamFn, maxTokens })).toThrow(
        expect.objectContaining({ message: expect.stringContaining("llm.maxTokens must be a positive integer") }),
      );
      expect(scripted.requests).toHaveLength(0);
    },
  );

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10"])(
    "rejects the cap %s when the turn is built",
    (cap) => {
      const scripted = createScriptedModel();
      const inner = scripted.streamFn;
      const build = () => withHostMaxOutputTokens(inner, cap as number);
      expect(build).toThrow(TurnkitConfigError);
      try {
        build();
      } catch (error) {
        expect((error as TurnkitConfigError).code).toBe(ConfigErrorCode.InvalidHostCap);
      }
      expect(() => composeStreamFn({ model, streamFn: inner, hostMaxOutputTokens: cap as number })).toThrow(
        expect.objectContaining({ code: "invalid_host_cap" }),
      );
      expect(scripted.requests).toHaveLength(0);
    },
  );

  it("leaves the stream function untouched without a cap", () => {
    const inner = createScriptedModel().streamFn;
    expect(withHostMaxOutputTokens(inner, undefined)).toBe(inner);
  });
});

describe("withCacheRetention", () => {
  it("fills cacheRetention; a per-call value wins", async () => {
    expect((await optionsSeenBy((f) => withCacheRetention(f, "long")))?.cacheRetention).toBe("long");
    expect(
      (await optionsSeenBy((f) => withCacheRetention(f, "long"), { cacheRetention: "none" }))?.cacheRetention,
    ).toBe("none");
  });

  it("rejects an unknown retention at build time", () => {
    expect(() => withCacheRetention(createScriptedModel().streamFn, "forever" as never)).toThrow(
      expect.objectContaining({ code: "invalid_turn_input" }),
    );
  });
});

describe("withMaxTokens", () => {
  it("fills a positive maxTokens; a positive per-call value wins", async () => {
    expect((await optionsSeenBy((f) => withMaxTokens(f, 300)))?.maxTokens).toBe(300);
    expect((await optionsSeenBy((f) => withMaxTokens(f, 300), { maxTokens: 42 }))?.maxTokens).toBe(42);
    expect((await optionsSeenBy((f) => withMaxTokens(f, 300), { maxTokens: 0 }))?.maxTokens).toBe(300);
  });

  it("ignores a non-positive value", async () => {
    const inner = createScriptedModel().streamFn;
    expect(withMaxTokens(inner, 0)).toBe(inner);
    expect(withMaxTokens(inner, -5)).toBe(inner);
    expect((await optionsSeenBy((f) => withMaxTokens(f, -5)))?.maxTokens).toBeUndefined();
  });
});

describe("withHeaders", () => {
  it("merges headers; the per-call value wins", async () => {
    const seen = await optionsSeenBy((f) => withHeaders(f, { "x-a": "host", "x-b": "host" }), {
      headers: { "x-b": "call", "x-c": "call" },
    });
    expect(seen?.headers).toEqual({ "x-a": "host", "x-b": "call", "x-c": "call" });
  });

  it("a header name is the same name in any case: the per-call value wins, and only it is sent", async () => {
    const host = { "X-Title": "host", "anthropic-beta": "host-beta", "x-a": "host" };
    const call = { "x-title": "call", "Anthropic-Beta": "call-beta" };
    for (const layered of [
      (f: StreamFn) => withHeaders(f, host),
      (f: StreamFn) => composeStreamFn({ model, streamFn: f, headers: host }),
    ]) {
      const seen = await optionsSeenBy(layered, { headers: call });
      expect(seen?.headers).toEqual({ "x-a": "host", "x-title": "call", "Anthropic-Beta": "call-beta" });
    }
  });

  it("sets no headers when there are none", async () => {
    const inner = createScriptedModel().streamFn;
    expect(withHeaders(inner, {})).toBe(inner);
    expect(withHeaders(inner, undefined)).toBe(inner);
    const seen = await optionsSeenBy((f) => composeStreamFn({ model, streamFn: f, headers: {} }));
    expect(seen).not.toHaveProperty("headers");
  });

  it("does not mutate the caller's options", async () => {
    const callOptions = { headers: { "x-c": "call" } };
    await optionsSeenBy((f) => withHeaders(f, { "x-a": "host" }), callOptions);
    expect(callOptions).toEqual({ headers: { "x-c": "call" } });
  });
});

describe("withFetch", () => {
  it("passes fetch to a stream function that accepts one, and it is used", async () => {
    const fetched: string[] = [];
    const customFetch = (async (url: string | URL | Request) => {
      fetched.push(String(url));
      return new Response("fetched body");
    }) as typeof fetch;
    // A stream function that takes a custom fetch (pi-ai's built-ins do not).
    const fetchingStreamFn: StreamFn = async (m, c, options) => {
      const f = (options as { fetch?: typeof fetch } | undefined)?.fetch ?? fetch;
      const body = await (await f("https://llm.example/v1")).text();
      return createScriptedModel([body]).streamFn(m, c, options);
    };
    const result = await collectStream(withFetch(fetchingStreamFn, customFetch)(model, context, {}));
    expect(fetched).toEqual(["https://llm.example/v1"]);
    expect(result.text).toBe("fetched body");
  });

  it("a per-call fetch wins; no fetch leaves the function untouched", async () => {
    const host = (async () => new Response("host")) as typeof fetch;
    const call = (async () => new Response("call")) as typeof fetch;
    expect((await optionsSeenBy((f) => withFetch(f, host), { fetch: call }))?.fetch).toBe(call);
    expect((await optionsSeenBy((f) => withFetch(f, host)))?.fetch).toBe(host);
    const inner = createScriptedModel().streamFn;
    expect(withFetch(inner, undefined)).toBe(inner);
  });
});

describe("withRequestTimeout", () => {
  it("fills the 20 min default; a per-call value wins", async () => {
    expect((await optionsSeenBy((f) => withRequestTimeout(f)))?.timeoutMs).toBe(TURN_DEFAULTS.llmRequestTimeoutMs);
    expect(TURN_DEFAULTS.llmRequestTimeoutMs).toBe(20 * 60 * 1000);
    expect((await optionsSeenBy((f) => withRequestTimeout(f), { timeoutMs: 5 }))?.timeoutMs).toBe(5);
  });
});

describe("composeStreamFn", () => {
  it("applies every wrapper, explicit per-call values winning", async () => {
    const seen = await optionsSeenBy(
      (f) =>
        composeStreamFn({
          model,
          streamFn: f,
          hostMaxOutputTokens: 2_000,
          maxTokens: 4_000,
          cacheRetention: "long",
          headers: { "x-host": "1" },
        }),
      { headers: { "x-call": "2" }, cacheRetention: "short" },
    );
    expect(seen).toMatchObject({
      maxTokens: 2_000,
      cacheRetention: "short",
      headers: { "x-host": "1", "x-call": "2" },
      timeoutMs: TURN_DEFAULTS.llmRequestTimeoutMs,
    });
  });

  it("never asks for more than the model gives, nor sends a request's maxTokens that is no positive integer", async () => {
    const layered = (f: StreamFn) => composeStreamFn({ model, streamFn: f, maxTokens: 20_000 });
    // No host cap: the turn's 20,000 is lowered to the model's own 8,000, as a request's 9,000 is.
    expect((await optionsSeenBy(layered))?.maxTokens).toBe(8_000);
    expect((await optionsSeenBy(layered, { maxTokens: 9_000 }))?.maxTokens).toBe(8_000);
    expect((await optionsSeenBy(layered, { maxTokens: 700 }))?.maxTokens).toBe(700);
    // A fraction (a hook's own request asking for 0.5) counts as not asked: the turn's value fills it.
    expect(
      (await optionsSeenBy((f) => composeStreamFn({ model, streamFn: f, maxTokens: 300 }), { maxTokens: 0.5 }))
        ?.maxTokens,
    ).toBe(300);
    for (const odd of [0.5, 0, -1, Number.NaN])
      expect(
        await optionsSeenBy((f) => composeStreamFn({ model, streamFn: f }), { maxTokens: odd }),
      ).not.toHaveProperty("maxTokens");
  });

  it("the host cap sits inside max tokens: it clamps the configured value", async () => {
    const seen = await optionsSeenBy((f) =>
      composeStreamFn({ model, streamFn: f, hostMaxOutputTokens: 100, maxTokens: 4_000 }),
    );
    expect(seen?.maxTokens).toBe(100);
  });

  it("turns a throwing or rejecting stream function into a terminal error event", async () => {
    const throwing = composeStreamFn({ model, streamFn: createScriptedModel([throwSync(new Error("boom"))]).streamFn });
    const rejecting = composeStreamFn({ model, streamFn: createScriptedModel([reject(new Error("nope"))]).streamFn });
    const a = await collectStream(throwing(model, context, {}));
    const b = await collectStream(rejecting(model, context, {}));
    expect(a.types).toEqual(["error"]);
    expect(a.final).toMatchObject({ stopReason: "error", errorMessage: "boom" });
    expect(b.final).toMatchObject({ stopReason: "error", errorMessage: "nope" });
  });

  for (const [llm, code, message] of [
    [undefined, "invalid_turn_input", "composeStreamFn: llm must be an object, got undefined"],
    [5, "invalid_turn_input", "composeStreamFn: llm must be an object, got 5"],
    [{ streamFn: 5 }, "invalid_turn_input", "composeStreamFn: llm.streamFn must be a function, got 5"],
    [{ headers: "x" }, "invalid_turn_input", 'composeStreamFn: llm.headers must be an object, got "x"'],
    [{ maxToken: 5 }, "unknown_key", "did you mean 'maxTokens'?"],
  ] as const) {
    it(`refuses the llm config ${JSON.stringify(llm)} when it is built, naming the field`, () => {
      let thrown: unknown;
      try {
        composeStreamFn(llm as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TurnkitConfigError);
      expect(thrown).toMatchObject({ code });
      expect((thrown as Error).message).toContain(message);
    });
  }
});
