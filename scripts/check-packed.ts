/*
 * `pnpm check:packed`: the packages as a host installs them. Packs the
 * seven packages (after `pnpm build`), installs the tarballs into an empty
 * project outside the monorepo (no workspace links, no `source` condition:
 * only what the tarballs and their declared dependencies hold), then
 *
 * - imports every entry of every package's `exports` under Node;
 * - type-checks the quickstart, custom-tool, extension and testing-your-host
 *   examples' sources against the packed declarations, as a strict
 *   `NodeNext` project without `skipLibCheck` (errors inside third-party
 *   declarations are not ours and are left out; those in ours are not);
 * - runs them, then a turn with a tool of an MCP server written with the
 *   official SDK over stdio, and a durable turn on `startTestPostgres`,
 *   read back as the AI SDK's UI message and its SSE stream.
 *
 * Any failure exits 1 naming the step. CI runs it after the build; it
 * needs the package registry for what the pnpm store lacks.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const PACKAGES = ["protocol", "agent-loop", "agent-core", "agent-runtime", "agent-mcp", "ui-stream", "agent-durable"];
const EXAMPLES = ["quickstart", "custom-tool", "extension", "testing-your-host"];
const require = createRequire(import.meta.url);

function run(step: string, command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.status !== 0) {
    console.error(`check:packed: ${step} failed (exit ${result.status ?? result.signal}):\n${output}`);
    process.exit(1);
  }
  return output;
}

function fail(step: string, detail: string): never {
  console.error(`check:packed: ${step}: ${detail}`);
  process.exit(1);
}

/** The version the monorepo pins for `name` (the first package.json that names it). */
function pinnedVersion(name: string): string {
  for (const file of ["package.json", "packages/agent-mcp/package.json", "packages/agent-core/package.json"]) {
    const manifest = JSON.parse(readFileSync(join(ROOT, file), "utf8"));
    const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (version) return version;
  }
  fail("setup", `no version of ${name} in the monorepo`);
}

const work = mkdtempSync(join(tmpdir(), "turnkit-packed-"));
// As root, `startTestPostgres` runs Postgres as the `postgres` user, which must reach the binaries installed here.
chmodSync(work, 0o755);
try {
  const packs = join(work, "packs");
  const host = join(work, "host");
  mkdirSync(host, { recursive: true });
  run(
    "pack",
    "npx",
    ["-y", "pnpm@12.4.2", "-r", "--filter", "./packages/*", "pack", "--pack-destination", packs],
    ROOT,
  );
  const tarballs = Object.fromEntries(
    PACKAGES.map((name) => {
      const file = readdirSync(packs).find((each) => each.startsWith(`turnkit-${name}-`) && each.endsWith(".tgz"));
      if (!file) fail("pack", `no tarball of @turnkit/${name}`);
      return [`@turnkit/${name}`, `file:${join(packs, file)}`];
    }),
  );
  const dependencies: Record<string, string> = { ...tarballs };
  for (const name of ["@mariozechner/pi-ai", "@sinclair/typebox", "@modelcontextprotocol/sdk", "zod", "@types/node"])
    dependencies[name] = pinnedVersion(name);
  writeFileSync(
    join(host, "package.json"),
    JSON.stringify({ name: "packed-host", private: true, type: "module", dependencies }),
  );
  // The tarballs name each other by version: the overrides point those at the tarballs, not the registry.
  const workspace = readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8");
  const allowBuilds = workspace.slice(workspace.indexOf("allowBuilds:"));
  const overrides = Object.entries(tarballs).map(([name, spec]) => `  "${name}": "${spec}"`);
  writeFileSync(join(host, "pnpm-workspace.yaml"), `${allowBuilds.trimEnd()}\noverrides:\n${overrides.join("\n")}\n`);
  run("install", "npx", ["-y", "pnpm@12.4.2", "install", "--prefer-offline"], host);

  // Every export entry imports, and exports something.
  const imports = PACKAGES.flatMap((name) => {
    const manifest = JSON.parse(readFileSync(join(host, "node_modules/@turnkit", name, "package.json"), "utf8"));
    return Object.keys(manifest.exports).map((entry) => `@turnkit/${name}${entry === "." ? "" : entry.slice(1)}`);
  });
  writeFileSync(
    join(host, "imports.mjs"),
    `for (const entry of ${JSON.stringify(imports)}) {
  const exported = Object.keys(await import(entry));
  if (exported.length === 0) throw new Error(entry + " exports nothing");
}
console.log("imported ${imports.length} entries");\n`,
  );
  run("import every export entry", process.execPath, ["imports.mjs"], host);

  // The examples' sources, type-checked against the packed declarations, compiled and run.
  for (const example of EXAMPLES)
    cpSync(join(ROOT, "examples", example, "src"), join(host, "src", example), { recursive: true });
  cpSync(fileURLToPath(new URL("packed-host", import.meta.url)), join(host, "src", "packed"), { recursive: true });
  writeFileSync(
    join(host, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        outDir: "out",
        types: ["node"],
      },
      include: ["src"],
    }),
  );
  const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], {
    cwd: host,
    encoding: "utf8",
  });
  // Errors of third-party declarations (tsc goes on emitting past them) are not this project's.
  const ours = (tsc.stdout ?? "")
    .split("\n")
    .filter((line) => /error TS/.test(line) && (line.startsWith("src/") || line.includes("node_modules/@turnkit/")));
  if (tsc.status !== 0 && !/error TS/.test(tsc.stdout ?? ""))
    fail("type-check the examples", `tsc failed without a type error:\n${tsc.stdout}${tsc.stderr}`);
  if (ours.length > 0) fail("type-check the examples against the packed declarations", `\n${ours.join("\n")}`);
  for (const example of EXAMPLES) run(`run the ${example} example`, process.execPath, [`out/${example}/main.js`], host);
  const mcp = run("a turn with an MCP server's tool", process.execPath, ["out/packed/mcp-turn.js"], host);
  if (!mcp.includes("HELLO FROM THE TARBALLS"))
    fail("a turn with an MCP server's tool", `the tool's answer is missing:\n${mcp}`);
  const durable = run("a durable turn", process.execPath, ["out/packed/durable-turn.js"], host);
  if (!/^completed$/m.test(durable)) fail("a durable turn", `it did not complete:\n${durable}`);
  if (!durable.includes('text "It is 5."; status completed') || !durable.includes("[DONE]"))
    fail("a durable turn as a UI message stream", `the answer or the stream's end is missing:\n${durable}`);
  console.log(durable.trim());
  console.log(
    `check:packed: ${PACKAGES.length} packages, ${imports.length} entries, ${EXAMPLES.length} examples, MCP and durable turns, UI stream: ok`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
