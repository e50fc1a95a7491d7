import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** Every module reachable from `entry` through relative imports, with the bare specifiers each one imports at runtime. */
function runtimeImports(entry: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (found.has(file)) continue;
    const source = readFileSync(file, "utf8");
    const specifiers = [
      ...source.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm),
    ].map((match) => match[1]);
    found.set(
      file,
      specifiers.filter((specifier) => !specifier.startsWith(".")),
    );
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    }
  }
  return found;
}

describe("where the proxy code lives", () => {
  it("the main entry (streamProxy included) imports no node: module, so it runs in browsers; the server stays in /proxy-server", () => {
    const entry = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
    const modules = runtimeImports(entry);
    const nodeImports = [...modules].flatMap(([file, specifiers]) =>
      specifiers.filter((specifier) => specifier.startsWith("node:")).map((specifier) => `${file}: ${specifier}`),
    );

    expect(modules.size).toBeGreaterThan(10);
    expect(nodeImports).toEqual([]);
    expect([...modules.keys()].some((file) => file.endsWith("proxy/stream-proxy.ts"))).toBe(true);
    expect([...modules.keys()].some((file) => file.includes("proxy-server"))).toBe(false);
  });
});
