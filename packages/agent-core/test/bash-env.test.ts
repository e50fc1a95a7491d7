import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  BASH_ENV_SCRUB_DENYLIST,
  createBashEnvSpawnHook,
  resolveBashEnvSanitizeMode,
  sanitizeBashEnv,
  type BashEnvSanitizeMode,
} from "../src/bash-env.js";

/** An environment as a CI runner might have it. Values are fake. */
function sampleEnv(): Record<string, string> {
  return {
    PATH: "/usr/bin:/bin",
    HOME: "/home/agent",
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "xterm",
    TMPDIR: "/tmp",
    EDITOR: "vi",
    GIT_AUTHOR_NAME: "Agent",
    TOKENIZERS_PARALLELISM: "false",
    OPENAI_API_KEY: "sk-openai-value",
    ANTHROPIC_API_KEY: "sk-ant-value",
    TURNKIT_PROVIDER_API_KEY: "tk-value",
    AWS_SECRET_ACCESS_KEY: "aws-value",
    GITHUB_TOKEN: "ghs-value",
    INPUT_GITHUB_TOKEN: "ghs-input-value",
    "INPUT_ANTHROPIC-API-KEY": "sk-input-value",
    TURNKIT_RUNTIME_SOCKET: "/run/turnkit.sock",
    TURNKIT_PARENT_PID: "123",
    TURNKIT_SESSION_ID: "session-1",
    TURNKIT_AGENT_ID: "agent-1",
    MY_SERVICE_PASSWORD: "hunter2",
    DB_SECRET: "db-value",
    STRIPE_API_KEY: "stripe-value",
    SSH_PRIVATE_KEY: "pk-value",
    NPM_CONFIG__AUTH: "npm-auth-value",
  };
}

const BOUNDARY = ["TURNKIT_AGENT_ID", "TURNKIT_PARENT_PID", "TURNKIT_RUNTIME_SOCKET", "TURNKIT_SESSION_ID"];
const SCRUBBED = [
  "ANTHROPIC_API_KEY",
  "AWS_SECRET_ACCESS_KEY",
  "GITHUB_TOKEN",
  "INPUT_ANTHROPIC-API-KEY",
  "INPUT_GITHUB_TOKEN",
  "OPENAI_API_KEY",
  "TURNKIT_PROVIDER_API_KEY",
];
const STRICT_ONLY = ["DB_SECRET", "MY_SERVICE_PASSWORD", "NPM_CONFIG__AUTH", "SSH_PRIVATE_KEY", "STRIPE_API_KEY"];
const noCi = {};

describe("sanitizeBashEnv modes", () => {
  it("off removes only the boundary variables (layer A)", () => {
    const { env, removed, mode } = sanitizeBashEnv(sampleEnv(), { mode: "off" });
    expect(mode).toBe("off");
    expect(removed).toEqual(BOUNDARY);
    expect(env.OPENAI_API_KEY).toBe("sk-openai-value");
    for (const name of BOUNDARY) expect(env).not.toHaveProperty(name);
  });

  it("scrub also removes the denylist and its INPUT_ aliases, nothing else", () => {
    const { env, removed, mode } = sanitizeBashEnv(sampleEnv(), { mode: "scrub" });
    expect(mode).toBe("scrub");
    expect(removed).toEqual([...BOUNDARY, ...SCRUBBED].sort());
    expect(env.MY_SERVICE_PASSWORD).toBe("hunter2");
    expect(env.EDITOR).toBe("vi");
  });

  it("strict also removes every credential-looking name but keeps what a shell needs", () => {
    const { env, removed, mode } = sanitizeBashEnv(sampleEnv(), { mode: "strict" });
    expect(mode).toBe("strict");
    expect(removed).toEqual([...BOUNDARY, ...SCRUBBED, ...STRICT_ONLY].sort());
    expect(env).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/agent",
      SHELL: "/bin/bash",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TERM: "xterm",
      TMPDIR: "/tmp",
      EDITOR: "vi",
      GIT_AUTHOR_NAME: "Agent",
      TOKENIZERS_PARALLELISM: "false",
    });
  });

  it("strict never removes PATH, HOME or LC_* even with names that look like credentials", () => {
    const { env } = sanitizeBashEnv(
      { PATH: "/bin", HOME: "/h", LC_ALL: "C", LC_AUTH_TOKEN: "x", API_KEY: "k" },
      { mode: "strict" },
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", LC_ALL: "C", LC_AUTH_TOKEN: "x" });
  });

  it("the denylist covers the LLM, cloud and CI names the spec lists", () => {
    for (const name of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "TURNKIT_PROVIDER_API_KEY",
      "GEMINI_API_KEY",
      "GROQ_API_KEY",
      "AWS_SESSION_TOKEN",
      "AZURE_CLIENT_SECRET",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "GH_TOKEN",
      "NPM_TOKEN",
      "ACTIONS_RUNTIME_TOKEN",
      "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    ]) {
      expect(BASH_ENV_SCRUB_DENYLIST).toContain(name);
      expect(sanitizeBashEnv({ [name]: "v", [`INPUT_${name}`]: "v" }, { mode: "scrub" }).removed).toEqual(
        [name, `INPUT_${name}`].sort(),
      );
    }
  });

  it("compares names case-insensitively", () => {
    expect(sanitizeBashEnv({ Github_Token: "v", turnkit_session_id: "s" }, { mode: "scrub" }).removed).toEqual([
      "Github_Token",
      "turnkit_session_id",
    ]);
  });
});

describe("sanitizeBashEnv options and guarantees", () => {
  it("the allowlist exempts names from scrub and strict, but not from layer A", () => {
    const { env, removed } = sanitizeBashEnv(sampleEnv(), {
      mode: "strict",
      allowlist: ["github_token", "DB_SECRET", "TURNKIT_SESSION_ID"],
    });
    expect(env.GITHUB_TOKEN).toBe("ghs-value");
    expect(env.DB_SECRET).toBe("db-value");
    expect(removed).toContain("TURNKIT_SESSION_ID");
  });

  it("boundary prefixes and names are configurable", () => {
    const { removed } = sanitizeBashEnv(
      { ACME_RUNTIME_X: "1", ACME_ID: "2", TURNKIT_RUNTIME_Y: "3" },
      { mode: "off", boundaryPrefixes: ["ACME_RUNTIME_"], boundaryNames: ["ACME_ID"] },
    );
    expect(removed).toEqual(["ACME_ID", "ACME_RUNTIME_X"]);
  });

  it("never mutates the input and drops undefined values", () => {
    const input = { ...sampleEnv(), UNSET: undefined };
    const before = structuredClone(input);
    const { env } = sanitizeBashEnv(input, { mode: "strict" });
    expect(input).toEqual(before);
    expect(env).not.toBe(input);
    expect(env).not.toHaveProperty("UNSET");
  });

  it("reports names only, never values", () => {
    const input = sampleEnv();
    const report = JSON.stringify(sanitizeBashEnv(input, { mode: "strict" }).removed);
    for (const name of [...SCRUBBED, ...STRICT_ONLY]) expect(report).not.toContain(input[name]!);
    expect(report).toContain("OPENAI_API_KEY");
  });
});

describe("mode resolution", () => {
  const resolve = (ciEnv: Record<string, string>, mode?: BashEnvSanitizeMode) =>
    resolveBashEnvSanitizeMode({ ciEnv, ...(mode && { mode }) });

  it("is off without CI and without configuration", () => {
    expect(resolve(noCi)).toBe("off");
    expect(sanitizeBashEnv({ OPENAI_API_KEY: "v" }, { ciEnv: noCi }).removed).toEqual([]);
  });

  it("is scrub when CI or GITHUB_ACTIONS is truthy", () => {
    for (const value of ["1", "true", "TRUE", "yes", "anything"]) {
      expect(resolve({ CI: value })).toBe("scrub");
      expect(resolve({ GITHUB_ACTIONS: value })).toBe("scrub");
    }
    for (const value of ["", "0", "false", "False", " "]) expect(resolve({ CI: value })).toBe("off");
    expect(sanitizeBashEnv({ OPENAI_API_KEY: "v" }, { ciEnv: { GITHUB_ACTIONS: "true" } }).removed).toEqual([
      "OPENAI_API_KEY",
    ]);
  });

  it("TURNKIT_BASH_ENV_SANITIZE wins over CI, the explicit option wins over both", () => {
    expect(resolve({ CI: "true", TURNKIT_BASH_ENV_SANITIZE: "off" })).toBe("off");
    expect(resolve({ TURNKIT_BASH_ENV_SANITIZE: "strict" })).toBe("strict");
    expect(resolve({ TURNKIT_BASH_ENV_SANITIZE: " Scrub " })).toBe("scrub");
    expect(resolve({ TURNKIT_BASH_ENV_SANITIZE: "strict", CI: "1" }, "off")).toBe("off");
  });

  it("an unrecognised configured value means strict, so a typo never weakens sanitising", () => {
    expect(resolve({ TURNKIT_BASH_ENV_SANITIZE: "stirct" })).toBe("strict");
  });
});

describe("createBashEnvSpawnHook", () => {
  it("returns new spawn options with a sanitised env and keeps the rest", () => {
    const reports: unknown[] = [];
    const hook = createBashEnvSpawnHook({ mode: "scrub", onSanitized: (r) => reports.push(r) });
    const given = { cwd: "/tmp", detached: true, env: { PATH: "/bin", OPENAI_API_KEY: "sk-x" } };
    const out = hook(given);
    expect(out).toEqual({ cwd: "/tmp", detached: true, env: { PATH: "/bin" } });
    expect(given.env.OPENAI_API_KEY).toBe("sk-x");
    expect(reports).toEqual([{ removed: ["OPENAI_API_KEY"], mode: "scrub" }]);
  });

  it("starts from process.env when the options carry no env", () => {
    const out = createBashEnvSpawnHook({ mode: "off" })({ cwd: "/" });
    expect(out.env.PATH).toBe(process.env.PATH);
  });

  it("swallows a failing observer", () => {
    const hook = createBashEnvSpawnHook({
      mode: "scrub",
      onSanitized: () => {
        throw new Error("observer broke");
      },
    });
    expect(hook({ env: { A: "1" } }).env).toEqual({ A: "1" });
  });

  it("a real bash child spawned through the hook does not see a scrubbed key", async () => {
    const hook = createBashEnvSpawnHook({ mode: "scrub" });
    const env = {
      PATH: process.env.PATH,
      OPENAI_API_KEY: "sk-must-not-reach-child",
      TURNKIT_SESSION_ID: "parent",
      VISIBLE_MARKER: "yes",
    };
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn("bash", ["-c", "env"], hook({ env, stdio: ["ignore", "pipe", "inherit"] }));
      let text = "";
      child.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.on("error", reject);
      child.on("close", () => resolve(text));
    });
    expect(output).toContain("VISIBLE_MARKER=yes");
    expect(output).not.toContain("OPENAI_API_KEY");
    expect(output).not.toContain("sk-must-not-reach-child");
    expect(output).not.toContain("TURNKIT_SESSION_ID");
    expect(process.env.OPENAI_API_KEY).not.toBe("sk-must-not-reach-child");
  });
});
