import { TurnkitConfigError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import {
  type Extension,
  type ExtensionProfile,
  assertExtension,
  assertExtensionId,
  createAgentRuntime,
  resolveExtensions,
} from "../src/index.js";
import { extension, rejected, thrown } from "./fixtures.js";

const base = [extension("a"), extension("b"), extension("c")];
const additions = [extension("x"), extension("y"), extension("z")];

function ids(profile?: ExtensionProfile, extra: { base?: Extension[]; additions?: Extension[] } = {}): string[] {
  return resolveExtensions({ base: extra.base ?? base, additions: extra.additions ?? additions, profile }).map(
    (e) => e.id,
  );
}

function overlayError(profile: ExtensionProfile, extra: { base?: Extension[]; additions?: Extension[] } = {}) {
  const error = thrown(() => ids(profile, extra));
  expect(TurnkitConfigError.isInstance(error)).toBe(true);
  expect(error.code).toBe("invalid_extension_id");
  return error.message;
}

describe("resolveExtensions: the profile overlay", () => {
  it("without a profile, the base extensions in order; additions stay off", () => {
    expect(ids()).toEqual(["a", "b", "c"]);
    expect(resolveExtensions({ base })).toEqual(base);
  });

  it("disable removes base extensions", () => {
    expect(ids({ disable: ["b"] })).toEqual(["a", "c"]);
    expect(ids({ disable: ["a", "c"] })).toEqual(["b"]);
  });

  it("enable appends additions in the order of additions, not of the profile list", () => {
    expect(ids({ enable: ["z", "x"] })).toEqual(["a", "b", "c", "x", "z"]);
  });

  it("replace puts the addition in the replaced extension's position", () => {
    expect(ids({ replace: { b: "y" } })).toEqual(["a", "y", "c"]);
    expect(ids({ replace: { a: "z", c: "x" } })).toEqual(["z", "b", "x"]);
  });

  it("combines disable, enable and replace", () => {
    expect(ids({ disable: ["a"], replace: { c: "x" }, enable: ["y"] })).toEqual(["b", "x", "y"]);
  });

  it("returns the extension objects themselves and does not modify its inputs", () => {
    const baseCopy = [...base];
    const profile = { disable: ["a"], replace: { b: "x" } };
    const resolved = resolveExtensions({ base, additions, profile });
    expect(resolved[0]).toBe(additions[0]);
    expect(resolved[1]).toBe(base[2]);
    expect(base).toEqual(baseCopy);
    expect(profile).toEqual({ disable: ["a"], replace: { b: "x" } });
  });

  it("params for known ids are accepted, also for extensions that are off", () => {
    expect(ids({ params: { a: { level: 1 }, z: 2 } })).toEqual(["a", "b", "c"]);
  });

  describe("errors name the ids involved", () => {
    it("duplicate ids in base", () => {
      expect(overlayError({}, { base: [extension("a"), extension("b"), extension("a")] })).toContain(
        'extension id "a" appears more than once in base',
      );
    });

    it("duplicate ids in additions", () => {
      expect(overlayError({}, { additions: [extension("x"), extension("x")] })).toContain(
        'extension id "x" appears more than once in additions',
      );
    });

    it("an id in both base and additions", () => {
      expect(overlayError({}, { additions: [extension("b")] })).toContain(
        'extension id "b" is in both base and additions',
      );
    });

    it("disable naming an unknown id, or an addition", () => {
      expect(overlayError({ disable: ["nope"] })).toContain('profile.disable names unknown extension "nope"');
      expect(overlayError({ disable: ["x"] })).toContain('profile.disable names "x", an addition');
    });

    it("enable naming an unknown id, or a base extension", () => {
      expect(overlayError({ enable: ["nope"] })).toContain('profile.enable names unknown extension "nope"');
      expect(overlayError({ enable: ["a"] })).toContain('profile.enable names "a", a base extension');
    });

    it("the same id twice in disable or enable", () => {
      expect(overlayError({ disable: ["a", "a"] })).toContain('profile.disable names "a" more than once');
      expect(overlayError({ enable: ["x", "x"] })).toContain('profile.enable names "x" more than once');
    });

    it("replace with an unknown key or an unknown replacement", () => {
      expect(overlayError({ replace: { nope: "x" } })).toContain(
        'profile.replace names unknown extension "nope" to replace',
      );
      expect(overlayError({ replace: { a: "nope" } })).toContain(
        'profile.replace["a"] names unknown replacement "nope"',
      );
      expect(overlayError({ replace: { a: "b" } })).toContain(
        'profile.replace["a"] names unknown replacement "b" (not in additions)',
      );
    });

    it("a base id both disabled and replaced (replacing a disabled id)", () => {
      expect(overlayError({ disable: ["a"], replace: { a: "x" } })).toContain(
        'extension "a" is both disabled and replaced (by "x")',
      );
    });

    it("an addition both enabled and used as a replacement", () => {
      expect(overlayError({ enable: ["x"], replace: { a: "x" } })).toContain(
        'addition "x" is both enabled and used to replace "a"',
      );
    });

    it("one addition replacing two base extensions", () => {
      expect(overlayError({ replace: { a: "x", b: "x" } })).toContain('addition "x" replaces both "a" and "b"');
    });

    it("params for an unknown id", () => {
      expect(overlayError({ params: { ghost: 1 } })).toContain('profile.params names unknown extension "ghost"');
    });

    it("malformed overlay fields", () => {
      expect(overlayError({ disable: "a" as unknown as string[] })).toContain(
        "profile.disable must be an array of extension ids",
      );
      expect(overlayError({ replace: ["a"] as unknown as Record<string, string> })).toContain(
        "profile.replace must be an object keyed by extension id",
      );
      expect(overlayError({ replace: { a: 1 as unknown as string } })).toContain(
        'profile.replace["a"] must be an addition id',
      );
    });

    it("lists every problem in one error", () => {
      const message = overlayError({ disable: ["nope"], enable: ["a"], replace: { b: "q" } });
      expect(message).toContain('"nope"');
      expect(message).toContain('profile.enable names "a"');
      expect(message).toContain('"q"');
    });

    it("invalid extension ids, naming the value and the position", () => {
      for (const bad of ["", "Upper", "-lead", "has space", "a/b", "x".repeat(65)]) {
        const message = overlayError({}, { base: [extension("a"), extension(bad)] });
        expect(message).toContain("base[1]");
        expect(message).toContain(JSON.stringify(bad));
      }
      expect(overlayError({}, { additions: [{ id: 7 } as unknown as Extension] })).toContain(
        "additions[0]: invalid extension id a number",
      );
      expect(overlayError({}, { base: [null as unknown as Extension] })).toContain(
        "base[0]: expected an extension { id, init }, got null",
      );
      for (const good of ["a", "0", "tool-pack.git", "reminder_todo", "x".repeat(64)])
        expect(ids({}, { base: [extension(good)] })).toEqual([good]);
    });

    it("an extension without init", () => {
      const error = thrown(() => resolveExtensions({ base: [{ id: "a" } as Extension] }));
      expect(error.code).toBe("extension_init");
      expect(error.message).toContain('extension "a" has no init(api) function');
    });
  });

  it("createAgentRuntime rejects for overlay errors before any init runs", async () => {
    let inits = 0;
    const counted = (id: string) => extension(id, () => void inits++);
    const error = await rejected(
      createAgentRuntime({ base: [counted("a"), counted("b")], additions: [], profile: { disable: ["c"] } }),
    );
    expect(error.code).toBe("invalid_extension_id");
    expect(error.message).toContain('"c"');
    expect(inits).toBe(0);
  });

  it("createAgentRuntime lists the resolved ids in order", async () => {
    const runtime = await createAgentRuntime({
      base,
      additions,
      profile: { disable: ["a"], replace: { c: "z" }, enable: ["x"] },
    });
    expect(runtime.extensions).toEqual(["b", "z", "x"]);
  });

  it("a hole in a list (base, additions, profile.disable) is refused as an undefined entry, naming it", () => {
    const withHole = <T>(item: T): T[] => {
      const list: T[] = new Array(2);
      list[1] = item;
      return list;
    };
    const baseError = thrown(() => resolveExtensions({ base: withHole(extension("a")) }));
    expect(baseError.code).toBe("invalid_extension_id");
    expect(baseError.message).toBe("base[0]: expected an extension { id, init }, got undefined");
    const additionsError = thrown(() => resolveExtensions({ base, additions: withHole(extension("x")) }));
    expect(additionsError.message).toBe("additions[0]: expected an extension { id, init }, got undefined");
    expect(overlayError({ disable: withHole("a") })).toContain("profile.disable must be an array of extension ids");
  });
});

it("assertExtension and assertExtensionId refuse a where that is no string, naming the argument", () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  expect(() => assertExtension(extension("x"), proxy as never)).toThrow(
    new TypeError("assertExtension: where must be a string, got an unreadable value"),
  );
  expect(() => assertExtensionId("x", Symbol("where") as never)).toThrow(
    new TypeError("assertExtensionId: where must be a string, got symbol"),
  );
});

it("resolveExtensions refuses a profile that is no object and lists that cannot be read, in words", () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  expect(() => resolveExtensions({ base: [extension("a")], profile: null as never })).toThrow(
    "resolveExtensions: profile must be an object { disable?, enable?, replace?, params? }, got null",
  );
  expect(() => resolveExtensions({ base: proxy as never })).toThrow(
    "resolveExtensions: base must be an array of extensions",
  );
  expect(() => resolveExtensions({ base: [extension("a")], profile: { disable: proxy as never } })).toThrow(
    "profile.disable must be an array of extension ids",
  );
});
