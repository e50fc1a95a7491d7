/**
 * `prompt-read-registry`: agent-core's `BoundedInternalTurnPromptReadRegistry`
 * under generated sequences of its operations (`has`, `reserve`,
 * `remember`, `rebind`, `take`, `discard`, `close`) on a few turn ids and a
 * capacity of one to four. Each call is compared with a plain map that
 * follows the registry's documented contract: what it returns (the scope a
 * turn remembered, `undefined` included), or the code of what it throws
 * (`prompt_read_unknown_turn`, `prompt_read_duplicate_turn`,
 * `prompt_read_closed`, `capacity_exceeded`); its `size` never passes its
 * capacity and always matches the map's.
 */
import { BoundedInternalTurnPromptReadRegistry } from "@turnkit/agent-core";
import fc from "fast-check";

/** One call on the registry; `scope` is the index of the scope `remember` stores (`-1`: `undefined`). */
export type RegistryOperation =
  | { op: "has" | "reserve" | "take" | "discard"; turnId: string }
  | { op: "remember"; turnId: string; scope: number }
  | { op: "rebind"; turnId: string; toTurnId: string }
  | { op: "close" };

/** A registry's capacity and the calls made on it, in order. */
export interface RegistryCase {
  capacity: number;
  operations: RegistryOperation[];
}

const TURN_IDS = ["t1", "t2", "t3", "t4", "t5", ""];
const turnId = fc.constantFrom(...TURN_IDS);

const operationArbitrary: fc.Arbitrary<RegistryOperation> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constantFrom("has" as const, "reserve" as const), turnId }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom("take" as const, "discard" as const), turnId }) },
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant("remember" as const), turnId, scope: fc.integer({ min: -1, max: 3 }) }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("rebind" as const), turnId, toTurnId: turnId }) },
  { weight: 1, arbitrary: fc.constant({ op: "close" as const }) },
);

export const registryCaseArbitrary: fc.Arbitrary<RegistryCase> = fc.record({
  capacity: fc.integer({ min: 1, max: 4 }),
  operations: fc.array(operationArbitrary, { minLength: 1, maxLength: 40 }),
});

/** What a call gave: a value, or the code of the error it threw. */
type Result = { value: unknown } | { code: string };

/** The registry's contract, written plainly. */
class RegistryModel {
  private readonly slots = new Map<string, { scope: unknown; remembered: boolean }>();
  private closed = false;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.slots.size;
  }

  apply(operation: RegistryOperation, scopes: readonly object[]): Result {
    if (operation.op === "close") {
      this.closed = true;
      this.slots.clear();
      return { value: undefined };
    }
    if (this.closed) return { code: "prompt_read_closed" };
    const slot = this.slots.get(operation.turnId);
    switch (operation.op) {
      case "has":
        return { value: slot !== undefined };
      case "reserve":
        if (slot) return { code: "prompt_read_duplicate_turn" };
        if (this.slots.size >= this.capacity) return { code: "capacity_exceeded" };
        this.slots.set(operation.turnId, { scope: undefined, remembered: false });
        return { value: undefined };
      case "remember":
        if (!slot) return { code: "prompt_read_unknown_turn" };
        if (slot.remembered) return { code: "prompt_read_duplicate_turn" };
        slot.scope = operation.scope < 0 ? undefined : scopes[operation.scope];
        slot.remembered = true;
        return { value: undefined };
      case "rebind":
        if (!slot) return { code: "prompt_read_unknown_turn" };
        if (operation.toTurnId === operation.turnId) return { value: undefined };
        if (this.slots.has(operation.toTurnId)) return { code: "prompt_read_duplicate_turn" };
        this.slots.delete(operation.turnId);
        this.slots.set(operation.toTurnId, slot);
        return { value: undefined };
      case "take":
        if (!slot) return { code: "prompt_read_unknown_turn" };
        this.slots.delete(operation.turnId);
        return { value: slot.scope };
      case "discard":
        return { value: this.slots.delete(operation.turnId) };
    }
  }
}

function callRegistry(
  registry: BoundedInternalTurnPromptReadRegistry<object | undefined>,
  operation: RegistryOperation,
  scopes: readonly object[],
): Result {
  try {
    switch (operation.op) {
      case "close":
        return { value: registry.close() };
      case "has":
        return { value: registry.has(operation.turnId) };
      case "reserve":
        return { value: registry.reserve(operation.turnId) };
      case "remember":
        return {
          value: registry.remember(operation.turnId, operation.scope < 0 ? undefined : scopes[operation.scope]),
        };
      case "rebind":
        return { value: registry.rebind(operation.turnId, operation.toTurnId) };
      case "take":
        return { value: registry.take(operation.turnId) };
      case "discard":
        return { value: registry.discard(operation.turnId) };
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === "string" ? code : `no code: ${String(error)}` };
  }
}

/** Runs the calls on a real registry and on the model; throws at the first call where they differ. */
export async function checkRegistryCase(scenario: RegistryCase): Promise<void> {
  const scopes = [{ scope: 0 }, { scope: 1 }, { scope: 2 }, { scope: 3 }];
  const registry = new BoundedInternalTurnPromptReadRegistry<object | undefined>(scenario.capacity);
  const model = new RegistryModel(scenario.capacity);
  scenario.operations.forEach((operation, index) => {
    const got = callRegistry(registry, operation, scopes);
    const expected = model.apply(operation, scopes);
    const same =
      "code" in expected
        ? "code" in got && got.code === expected.code
        : "value" in got && Object.is(got.value, expected.value);
    if (!same)
      throw new Error(
        `call #${index} ${JSON.stringify(operation)}: the registry gave ${describe(got, scopes)}, the contract says ${describe(expected, scopes)}`,
      );
    if (registry.size !== model.size || registry.size > scenario.capacity)
      throw new Error(
        `after call #${index}: size ${registry.size}, the contract says ${model.size} (capacity ${scenario.capacity})`,
      );
  });
}

function describe(result: Result, scopes: readonly object[]): string {
  if ("code" in result) return `an error ${result.code}`;
  const scope = scopes.indexOf(result.value as object);
  return scope >= 0 ? `scope ${scope}` : (JSON.stringify(result.value) ?? "undefined");
}
