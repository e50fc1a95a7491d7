/**
 * Bad input at the edges: an unknown key in a profile, in an extension
 * definition or in the runtime's options throws `TurnkitConfigError`
 * (`unknown_key`) naming the key and the nearest valid one, instead of
 * being ignored (a profile `{ overlay: ... }` turned nothing off).
 */
import { describe, expect, it } from "vitest";
import { ConfigErrorCode, TurnkitConfigError } from "@turnkit/agent-core";
import { type Extension, createAgentRuntime } from "../src/index.js";

const extension = (id: string): Extension => ({ id, init: () => undefined });

async function configError(run: () => Promise<unknown>): Promise<TurnkitConfigError> {
  const error = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!TurnkitConfigError.isInstance(error)) throw new Error(`expected a TurnkitConfigError, got ${String(error)}`);
  return error;
}

describe("unknown keys in agent-runtime's inputs", () => {
  it("a profile key that is a typo names the key and the nearest valid one", async () => {
    const error = await configError(() =>
      createAgentRuntime({ base: [extension("memory")], profile: { disabled: ["memory"] } as never }),
    );
    expect(error.code).toBe(ConfigErrorCode.UnknownKey);
    expect(error.message).toBe("unknown key 'disabled' in profile; did you mean 'disable'?");
  });

  it("a profile key far from every valid one lists the valid keys (the overlay that disabled nothing)", async () => {
    const error = await configError(() =>
      createAgentRuntime({ base: [extension("memory")], profile: { overlay: { disable: ["memory"] } } as never }),
    );
    expect(error.code).toBe(ConfigErrorCode.UnknownKey);
    expect(error.message).toBe(
      "unknown key 'overlay' in profile; valid keys: 'disable', 'enable', 'replace', 'params'",
    );
  });

  it("an extension definition with an unknown key names the extension and the nearest key", async () => {
    const typo = { id: "memory", descripton: "remembers", init: () => undefined };
    const error = await configError(() => createAgentRuntime({ base: [typo as Extension] }));
    expect(error.code).toBe(ConfigErrorCode.UnknownKey);
    expect(error.message).toBe(`unknown key 'descripton' in base[0] (extension "memory"); did you mean 'description'?`);
  });

  it("an extension with members of its own (an MCP extension's status, a subscribe function) is accepted", async () => {
    const rich = {
      id: "issue-tracker",
      init: () => undefined,
      status: { state: "idle" },
      subscribe: () => () => undefined,
    };
    const runtime = await createAgentRuntime({ base: [rich] });
    expect(runtime).toBeDefined();
  });

  it("an extension written as a class instance: its methods are on the prototype and are not keys", async () => {
    class Memory implements Extension {
      readonly id = "memory";
      init(): void {}
      helper(): string {
        return "not a key";
      }
    }
    const runtime = await createAgentRuntime({ base: [new Memory()] });
    expect(runtime).toBeDefined();
  });

  it("the runtime's options: 'addition' for 'additions'", async () => {
    const error = await configError(() => createAgentRuntime({ base: [], addition: [extension("memory")] } as never));
    expect(error.code).toBe(ConfigErrorCode.UnknownKey);
    expect(error.message).toBe("unknown key 'addition' in agent runtime options; did you mean 'additions'?");
  });
});
