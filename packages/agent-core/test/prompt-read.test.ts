import { describe, expect, it } from "vitest";
import { ConfigErrorCode, TurnkitConfigError, TurnkitError } from "../src/errors.js";
import {
  BoundedInternalTurnPromptReadRegistry,
  PromptReadErrorCode,
  PromptReadScope,
  type PromptReadResult,
  type PromptSnapshotSource,
} from "../src/prompt-read.js";
import * as publicEntry from "../src/index.js";

/** A mutable settings store; each capture copies it, so later writes do not reach a taken snapshot. */
function settingsSource(initial: Record<string, unknown>) {
  const store = { ...initial };
  let captures = 0;
  const source: PromptSnapshotSource<Record<string, unknown>, string> = {
    async capture() {
      captures++;
      await Promise.resolve();
      return { ...store };
    },
    read(snapshot, key): PromptReadResult<string> {
      if (!(key in snapshot)) return { status: "missing" };
      const value = snapshot[key];
      return typeof value === "string"
        ? { status: "found", value }
        : { status: "invalid", reason: `${key} is not a string` };
    },
  };
  return { source, store, captures: () => captures };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(TurnkitError.isInstance(error)).toBe(true);
    return (error as TurnkitError).code;
  }
  throw new Error("expected a TurnkitError");
}

describe("PromptReadScope", () => {
  it("captures lazily, once, and every read in the scope sees that one snapshot", async () => {
    const { source, store, captures } = settingsSource({ persona: "terse", style: "plain" });
    const scope = new PromptReadScope(source);
    expect(captures()).toBe(0);
    expect(scope.hasSnapshot).toBe(false);

    const [a, b] = await Promise.all([scope.read("persona"), scope.read("style")]);
    expect(a).toEqual({ status: "found", value: "terse" });
    expect(b).toEqual({ status: "found", value: "plain" });
    expect(captures()).toBe(1);

    store.persona = "chatty";
    expect(await scope.read("persona")).toEqual({ status: "found", value: "terse" });
    expect(captures()).toBe(1);

    const next = new PromptReadScope(source);
    expect(await next.read("persona")).toEqual({ status: "found", value: "chatty" });
    expect(captures()).toBe(2);
  });

  it("passes missing and invalid through", async () => {
    const { source } = settingsSource({ count: 3 });
    const scope = new PromptReadScope(source);
    expect(await scope.read("absent")).toEqual({ status: "missing" });
    expect(await scope.read("count")).toEqual({ status: "invalid", reason: "count is not a string" });
  });

  it("never rejects: a failed capture or a throwing read becomes invalid with the reason, and the capture is not retried", async () => {
    let attempts = 0;
    const failing = new PromptReadScope<never>({
      capture() {
        attempts++;
        throw new Error("store offline");
      },
      read: () => ({ status: "missing" }),
    });
    expect(await failing.read("x")).toEqual({
      status: "invalid",
      reason: "capturing the prompt snapshot failed: store offline",
    });
    expect(await failing.read("y")).toEqual({
      status: "invalid",
      reason: "capturing the prompt snapshot failed: store offline",
    });
    expect(attempts).toBe(1);
    await expect(failing.snapshot()).rejects.toThrow("store offline");

    const throwingRead = new PromptReadScope({
      capture: () => ({}),
      read() {
        throw new Error("parse error");
      },
    });
    expect(await throwingRead.read("k")).toEqual({ status: "invalid", reason: 'reading "k" failed: parse error' });
  });
});

describe("prompt reads from the public entry", () => {
  it("a host builds a PromptReadScope with @turnkit/agent-core's export and hands it to the registry", async () => {
    const { source } = settingsSource({ persona: "terse" });
    const scope = new publicEntry.PromptReadScope(source);
    const registry = new publicEntry.BoundedInternalTurnPromptReadRegistry<typeof scope>();
    registry.reserve("turn-1");
    registry.remember("turn-1", scope);
    expect(await registry.take("turn-1")?.read("persona")).toEqual({ status: "found", value: "terse" });
  });
});

describe("BoundedInternalTurnPromptReadRegistry", () => {
  const scopeOf = () => new PromptReadScope(settingsSource({}).source);

  it("reserve, remember, take: the turn gets its scope back once", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry();
    expect(registry.capacity).toBe(128);
    const scope = scopeOf();
    registry.reserve("turn-1");
    registry.remember("turn-1", scope);
    expect(registry.size).toBe(1);
    expect(registry.take("turn-1")).toBe(scope);
    expect(registry.size).toBe(0);
    expect(codeOf(() => registry.take("turn-1"))).toBe(PromptReadErrorCode.UnknownTurn);
  });

  it("take of a reserved turn without a scope returns undefined and frees the slot", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry(1);
    registry.reserve("a");
    expect(registry.take("a")).toBeUndefined();
    registry.reserve("b");
  });

  it("refuses a reservation when full, with capacity_exceeded, and never evicts a reserved turn", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry(2);
    const first = scopeOf();
    registry.reserve("t1");
    registry.remember("t1", first);
    registry.reserve("t2");
    let caught: unknown;
    try {
      registry.reserve("t3");
    } catch (error) {
      caught = error;
    }
    expect(TurnkitConfigError.isInstance(caught)).toBe(true);
    expect((caught as TurnkitConfigError).code).toBe(ConfigErrorCode.CapacityExceeded);
    expect((caught as Error).message).toMatch(/full: 2 turns are reserved.*"t3".*No reserved turn is evicted/);
    expect(registry.has("t1") && registry.has("t2")).toBe(true);
    expect(registry.take("t1")).toBe(first);
    registry.reserve("t3");
    expect(registry.size).toBe(2);
  });

  it("gives clear errors for duplicates and unknown ids", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry();
    registry.reserve("t");
    expect(codeOf(() => registry.reserve("t"))).toBe(PromptReadErrorCode.DuplicateTurn);
    registry.remember("t", scopeOf());
    expect(codeOf(() => registry.remember("t", scopeOf()))).toBe(PromptReadErrorCode.DuplicateTurn);
    expect(codeOf(() => registry.remember("ghost", scopeOf()))).toBe(PromptReadErrorCode.UnknownTurn);
    expect(codeOf(() => registry.rebind("ghost", "x"))).toBe(PromptReadErrorCode.UnknownTurn);
    registry.reserve("u");
    expect(codeOf(() => registry.rebind("t", "u"))).toBe(PromptReadErrorCode.DuplicateTurn);
    expect(() => registry.remember("ghost", scopeOf())).toThrow(/cannot remember turn "ghost"; it was never reserved/);
  });

  it("a second remember is refused whatever the first one stored (undefined and null included)", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry<unknown>();
    for (const [id, first] of [
      ["a", undefined],
      ["b", null],
    ] as const) {
      registry.reserve(id);
      registry.remember(id, first);
      expect(codeOf(() => registry.remember(id, scopeOf()))).toBe(PromptReadErrorCode.DuplicateTurn);
      expect(registry.take(id)).toBe(first);
    }
  });

  it("rebind moves the reservation and its scope to the new id without using capacity", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry(2);
    const scope = scopeOf();
    registry.reserve("attempt-1");
    registry.remember("attempt-1", scope);
    registry.reserve("other");
    registry.rebind("attempt-1", "attempt-2");
    expect(registry.has("attempt-1")).toBe(false);
    expect(registry.size).toBe(2);
    expect(registry.take("attempt-2")).toBe(scope);
    registry.reserve("r");
    registry.rebind("r", "r");
    expect(registry.has("r")).toBe(true);
  });

  it("discard drops a turn and is safe to repeat", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry();
    registry.reserve("t");
    registry.remember("t", scopeOf());
    expect(registry.discard("t")).toBe(true);
    expect(registry.discard("t")).toBe(false);
    expect(registry.size).toBe(0);
  });

  it("after close every call throws a clear error; close itself may repeat", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry();
    registry.reserve("t");
    registry.close();
    expect(registry.size).toBe(0);
    for (const call of [
      () => registry.reserve("n"),
      () => registry.remember("t", scopeOf()),
      () => registry.rebind("t", "u"),
      () => registry.take("t"),
      () => registry.discard("t"),
      () => registry.has("t"),
    ]) {
      expect(codeOf(call)).toBe(PromptReadErrorCode.Closed);
    }
    expect(() => registry.take("t")).toThrow("Prompt-read registry: cannot take after close()");
    expect(() => registry.close()).not.toThrow();
  });

  it("rejects a capacity that is not a positive integer", () => {
    expect(() => new BoundedInternalTurnPromptReadRegistry(0)).toThrow(RangeError);
    expect(() => new BoundedInternalTurnPromptReadRegistry(1.5)).toThrow(/positive integer/);
  });

  it("refuses a turn id that is no string with a TypeError naming the argument, also one that cannot be read", () => {
    const registry = new BoundedInternalTurnPromptReadRegistry();
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(() => registry.reserve(proxy as never)).toThrow(
      new TypeError("BoundedInternalTurnPromptReadRegistry.reserve: turnId must be a string, got an unreadable value"),
    );
    expect(() => registry.take(10n as never)).toThrow(
      new TypeError("BoundedInternalTurnPromptReadRegistry.take: turnId must be a string, got bigint"),
    );
    registry.reserve("t");
    expect(() => registry.rebind("t", null as never)).toThrow(
      new TypeError("BoundedInternalTurnPromptReadRegistry.rebind: toTurnId must be a string, got null"),
    );
    expect(registry.has("t")).toBe(true);
  });
});
