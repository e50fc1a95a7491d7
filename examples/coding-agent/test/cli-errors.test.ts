import { beforeAll, describe, expect, it } from "vitest";
import { parseCliOptions } from "../src/cli-options.js";
import { HostError } from "../src/host-error.js";
import { resolveModelChoice } from "../src/model-choice.js";
import { runCli, type CliRun } from "./support/cli-process.js";

/** One line on stderr, naming the problem; no stack trace. */
function expectOneClearLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^coding-agent: /);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

function hostErrorOf(action: () => unknown): HostError {
  try {
    action();
  } catch (error) {
    if (HostError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a HostError");
}

describe("the CLI as a process (no provider keys in its environment)", { timeout: 90_000 }, () => {
  // Started together: each process pays tsx and pi-ai start-up once, in parallel.
  let missingKey: Promise<CliRun>;
  let unknownModel: Promise<CliRun>;
  let piped: Promise<CliRun>;
  beforeAll(() => {
    missingKey = runCli(["--model", "anthropic:claude-sonnet-4-5", "fix the test"]);
    unknownModel = runCli(["--model", "anthropic:claude-nonexistent-9"]);
    // The scripted rate limit asks for 100 ms instead of the demo's 2.1 s (scripted-session.test.ts waits that out).
    piped = runCli(["--delay-ms", "0", "--retry-after-ms", "100"]);
  });

  it("a real model without its key: one line naming the variable, exit code 1, nothing started", async () => {
    const run = await missingKey;
    expect(run.code).toBe(1);
    expectOneClearLine(run.stderr, /no API key for anthropic: set ANTHROPIC_API_KEY/);
    expect(run.stdout).toBe("");
  });

  it("an unknown model: one line with examples, exit code 1", async () => {
    const run = await unknownModel;
    expect(run.code).toBe(1);
    expectOneClearLine(
      run.stderr,
      /unknown model "claude-nonexistent-9" for provider anthropic; try one of \d+ models, e\.g\. /,
    );
  });

  it("with piped stdin and no --model it plays the scripted session and exits 0", async () => {
    const run = await piped;
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("› The slugify test fails. Find out why and fix it.");
    expect(run.stdout).toContain("  ✓ bash node --test · exit 0");
    expect(run.stdout).toContain("mcp issue-tracker: get_issue\n");
    expect(run.stdout).toContain("  ⟳ rate limited, retrying in 0.1 s\n");
    expect(run.stdout).toContain("  ⟲ compacted: 9 earlier messages summarised by scripted/scripted-summariser");
    expect(run.stdout).toMatch(/── 5 steps · 6 tool calls · 16,156 tokens in \/ 541 out · [\d.]+ (ms|s)\n/);
    expect(run.stdout).not.toContain("\x1b[");
  });
});

describe("the errors behind those lines", () => {
  it("an unknown provider lists pi-ai's providers", () => {
    const error = hostErrorOf(() => resolveModelChoice("nosuchprovider:model-1"));
    expect(error.code).toBe("unknown_model");
    expect(error.message).toMatch(/^unknown provider "nosuchprovider"; pi-ai knows: .*anthropic/);
  });

  it("malformed flags are usage errors naming the flag", () => {
    expect(hostErrorOf(() => parseCliOptions(["--model", "no-colon"])).message).toMatch(/^--model expects provider:id/);
    const unknownFlag = hostErrorOf(() => parseCliOptions(["--frobnicate"]));
    expect(unknownFlag.code).toBe("usage");
    expect(unknownFlag.message).toMatch(/--frobnicate.*see --help/);
    expect(hostErrorOf(() => parseCliOptions(["--delay-ms", "soon"])).message).toMatch(/^--delay-ms expects a number/);
    expect(hostErrorOf(() => parseCliOptions(["--retry-after-ms", "later"])).message).toBe(
      '--retry-after-ms expects a number of milliseconds >= 0, got "later"',
    );
    expect(hostErrorOf(() => parseCliOptions(["--mcp", "  "])).message).toMatch(/^--mcp expects a command/);
    expect(hostErrorOf(() => parseCliOptions(["--mcp", "node 'server.mjs"])).message).toBe(
      `--mcp has an unclosed ' in "node 'server.mjs"`,
    );
  });

  it("--mcp is repeatable and splits its value into a command and arguments, quotes keeping spaces", () => {
    expect(
      parseCliOptions(["--mcp", "node fixtures/server.mjs", "--mcp", `npx -y "@scope/some server" --root '/tmp/a b'`])
        .mcp,
    ).toEqual([
      { command: "node", args: ["fixtures/server.mjs"] },
      { command: "npx", args: ["-y", "@scope/some server", "--root", "/tmp/a b"] },
    ]);
  });

  it("flags and the task parse as given", () => {
    expect(parseCliOptions(["-y", "--model", "openai:gpt-4o", "--cwd", ".", "fix", "it"])).toEqual({
      yes: true,
      help: false,
      model: "openai:gpt-4o",
      cwd: ".",
      task: "fix it",
    });
    // What `pnpm start -- --yes` passes.
    expect(parseCliOptions(["--", "--yes"])).toEqual({ yes: true, help: false });
    expect(parseCliOptions(["--delay-ms", "5", "--retry-after-ms", "0"])).toEqual({
      yes: false,
      help: false,
      delayMs: 5,
      retryAfterMs: 0,
    });
  });
});
