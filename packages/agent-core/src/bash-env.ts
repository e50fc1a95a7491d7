import type { SpawnOptions } from "node:child_process";
import { TURN_DEFAULTS } from "./defaults.js";
import { assertObjectArgument } from "@turnkit/agent-loop/internal";

/**
 * How much of the parent's environment a bash child loses.
 *
 * - `off`: only the runtime's boundary variables (layer A) are removed.
 * - `scrub`: also a denylist of well-known credential variables (LLM keys,
 *   cloud secrets, CI tokens) and their GitHub Actions `INPUT_` aliases.
 * - `strict`: also every name that looks like a credential (`API_KEY`,
 *   `SECRET`, `TOKEN`, `PASSWORD`, ...), except the basics a shell needs.
 */
export type BashEnvSanitizeMode = "off" | "scrub" | "strict";

/** Options of {@link sanitizeBashEnv}; every field is optional. */
export interface SanitizeBashEnvOptions {
  /** Explicit mode; wins over the environment. */
  mode?: BashEnvSanitizeMode;
  /** Names never removed by layer B (scrub/strict), compared case-insensitively. Layer A ignores it. */
  allowlist?: readonly string[];
  /** Prefixes of the runtime's boundary variables (layer A). Default {@link DEFAULT_BASH_ENV_BOUNDARY_PREFIXES}. */
  boundaryPrefixes?: readonly string[];
  /** Exact names of boundary variables (layer A). Default {@link DEFAULT_BASH_ENV_BOUNDARY_NAMES}. */
  boundaryNames?: readonly string[];
  /**
   * The environment that decides the mode when `mode` is not given
   * (`TURNKIT_BASH_ENV_SANITIZE`, `CI`, `GITHUB_ACTIONS`). Default
   * `process.env`: the policy belongs to the host process, not to the env
   * being cleaned, so a host in CI that passes a custom env is still scrubbed.
   */
  ciEnv?: Readonly<Record<string, string | undefined>>;
}

/** What {@link sanitizeBashEnv} did. */
export interface SanitizedBashEnv {
  /** A new object: the input minus the removed names (and minus `undefined` values). */
  env: Record<string, string>;
  /** Names removed, sorted; never values. */
  removed: string[];
  /** The mode that was applied. */
  mode: BashEnvSanitizeMode;
}

/** Layer A prefixes removed in every mode: the runtime's own variables. */
export const DEFAULT_BASH_ENV_BOUNDARY_PREFIXES: readonly string[] = ["TURNKIT_RUNTIME_", "TURNKIT_PARENT_"];

/** Layer A names removed in every mode: ids a child could use to pose as the parent. */
export const DEFAULT_BASH_ENV_BOUNDARY_NAMES: readonly string[] = ["TURNKIT_SESSION_ID", "TURNKIT_AGENT_ID"];

/** Model-provider keys removed by `scrub`. */
const LLM_KEYS = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_OAUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "TURNKIT_PROVIDER_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GROQ_API_KEY",
  "MISTRAL_API_KEY",
  "XAI_API_KEY",
  "OPENROUTER_API_KEY",
  "DEEPSEEK_API_KEY",
  "CEREBRAS_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "PERPLEXITY_API_KEY",
  "COHERE_API_KEY",
  "CO_API_KEY",
  "ZAI_API_KEY",
  "MOONSHOT_API_KEY",
  "MINIMAX_API_KEY",
  "AI_GATEWAY_API_KEY",
  "COPILOT_GITHUB_TOKEN",
  "HF_TOKEN",
  "HUGGING_FACE_HUB_TOKEN",
  "REPLICATE_API_TOKEN",
];

/** Cloud credentials removed by `scrub`. */
const CLOUD_SECRETS = [
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
  "AZURE_CLIENT_SECRET",
  "AZURE_CLIENT_CERTIFICATE_PASSWORD",
  "AZURE_STORAGE_KEY",
  "AZURE_STORAGE_CONNECTION_STRING",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_OAUTH_ACCESS_TOKEN",
  "CLOUDSDK_AUTH_ACCESS_TOKEN",
  "DIGITALOCEAN_ACCESS_TOKEN",
  "CLOUDFLARE_API_TOKEN",
  "CLOUDFLARE_API_KEY",
  "HEROKU_API_KEY",
  "VERCEL_TOKEN",
  "NETLIFY_AUTH_TOKEN",
  "FLY_API_TOKEN",
];

/** CI and registry tokens removed by `scrub`. */
const CI_TOKENS = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
  "ACTIONS_RUNTIME_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_URL",
  "GITLAB_TOKEN",
  "CI_JOB_TOKEN",
  "NPM_TOKEN",
  "NODE_AUTH_TOKEN",
  "CODECOV_TOKEN",
  "SONAR_TOKEN",
  "DOCKER_PASSWORD",
  "DOCKERHUB_TOKEN",
  "PYPI_TOKEN",
  "TWINE_PASSWORD",
  "CARGO_REGISTRY_TOKEN",
  // Generic action inputs (`with: token:` / `with: api-key:`).
  "INPUT_TOKEN",
  "INPUT_API_KEY",
];

/** The `scrub` denylist. Each name is also removed as `INPUT_<name>` (GitHub Actions inputs). */
export const BASH_ENV_SCRUB_DENYLIST: readonly string[] = [...LLM_KEYS, ...CLOUD_SECRETS, ...CI_TOKENS];

/** Names that look like credentials; `strict` removes every match (tested on the upper-cased name). */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /API_?KEY/,
  /SECRET/,
  /TOKEN(S)?($|_)/,
  /PASSWORD|PASSWD|PASSPHRASE/,
  /CREDENTIAL/,
  /PRIVATE_?KEY/,
  /ACCESS_?KEY/,
  /(^|_)AUTH($|_)/,
  /(^|_)AUTHORIZATION($|_)/,
  /(^|_)COOKIE($|_)/,
];

/** Names `strict` never removes, whatever they look like: a shell needs them. */
const STRICT_PROTECTED = new Set([
  "PATH",
  "HOME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TMPDIR",
  "TMP",
  "TEMP",
  "USER",
  "LOGNAME",
  "PWD",
]);

const denylist = new Set(BASH_ENV_SCRUB_DENYLIST);

/**
 * Returns a copy of `env` fit for a bash child. Never mutates
 * `env`, never reports a value, and throws only a `TypeError` naming the
 * argument when `env` or `options` is no object.
 *
 * Layer A, in every mode: names starting with a boundary prefix or equal to
 * a boundary name are removed. Layer B, by mode: see
 * {@link BashEnvSanitizeMode}; names on `allowlist` are kept.
 *
 * Mode: `options.mode`, else `TURNKIT_BASH_ENV_SANITIZE` in `ciEnv`
 * (`off`/`scrub`/`strict`; `0`/`false` mean off, `1`/`true` mean scrub; any
 * other value means `strict`, so a typo never weakens sanitising), else
 * `scrub` when `CI` or `GITHUB_ACTIONS` is truthy (non-empty, not `0`/`false`),
 * else `off`. Names are compared upper-cased, so `Github_Token` counts too.
 */
export function sanitizeBashEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: SanitizeBashEnvOptions = {},
): SanitizedBashEnv {
  assertObjectArgument(env, "sanitizeBashEnv", "env");
  assertObjectArgument(options, "sanitizeBashEnv", "options");
  const mode = resolveBashEnvSanitizeMode(options);
  const prefixes = (options.boundaryPrefixes ?? DEFAULT_BASH_ENV_BOUNDARY_PREFIXES)
    .map((p) => p.toUpperCase())
    .filter((p) => p.length > 0);
  const boundaryNames = new Set((options.boundaryNames ?? DEFAULT_BASH_ENV_BOUNDARY_NAMES).map((n) => n.toUpperCase()));
  const allowed = new Set((options.allowlist ?? []).map((n) => n.toUpperCase()));

  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    const isBoundary = boundaryNames.has(upper) || prefixes.some((p) => upper.startsWith(p));
    const isCredential =
      !allowed.has(upper) &&
      (mode === "scrub"
        ? isScrubbed(upper)
        : mode === "strict"
          ? isScrubbed(upper) || looksLikeCredential(upper)
          : false);
    if (isBoundary || isCredential) removed.push(name);
    else out[name] = value;
  }
  removed.sort();
  return { env: out, removed, mode };
}

/**
 * The mode {@link sanitizeBashEnv} applies for these options (see there for
 * the order). Exposed so a host can log the policy once at start-up.
 */
export function resolveBashEnvSanitizeMode(
  options: Pick<SanitizeBashEnvOptions, "mode" | "ciEnv"> = {},
): BashEnvSanitizeMode {
  if (options.mode !== undefined) return parseMode(options.mode) ?? "strict";
  const ciEnv = options.ciEnv ?? process.env;
  const configured = ciEnv[TURN_DEFAULTS.bashEnvSanitizeEnv]?.trim();
  if (configured) return parseMode(configured) ?? "strict";
  if (isTruthyFlag(ciEnv.CI) || isTruthyFlag(ciEnv.GITHUB_ACTIONS)) return TURN_DEFAULTS.bashEnvSanitizeModeInCi;
  return TURN_DEFAULTS.bashEnvSanitizeMode;
}

/** Takes `child_process.spawn` options and returns a copy whose `env` is sanitised. */
export type BashEnvSpawnHook = (spawnOptions?: SpawnOptions) => SpawnOptions & { env: Record<string, string> };

/** Options of {@link createBashEnvSpawnHook}: the sanitise options plus an observer. */
export interface BashEnvSpawnHookOptions extends SanitizeBashEnvOptions {
  /**
   * Told, on every spawn, which names were removed and the mode (never
   * values), e.g. to emit a `debug.trace`. Its errors are swallowed.
   */
  onSanitized?: (report: { removed: string[]; mode: BashEnvSanitizeMode }) => void;
}

/**
 * Returns a function that takes spawn options and returns new ones whose
 * `env` is sanitised with `options` (starting from `process.env` when the
 * options carry no `env`). The given spawn options are not mutated; every
 * other option is copied as is. The mode is resolved on each call, so a
 * change of `TURNKIT_BASH_ENV_SANITIZE` applies to the next spawn. Throws a
 * `TypeError` naming the argument when `options` is no object.
 */
export function createBashEnvSpawnHook(options: BashEnvSpawnHookOptions = {}): BashEnvSpawnHook {
  assertObjectArgument(options, "createBashEnvSpawnHook", "options");
  const { onSanitized, ...sanitizeOptions } = options;
  return (spawnOptions) => {
    const base = spawnOptions ?? {};
    const { env, removed, mode } = sanitizeBashEnv(base.env ?? process.env, sanitizeOptions);
    try {
      onSanitized?.({ removed: [...removed], mode });
    } catch {
      // An observer; it cannot stop a spawn.
    }
    return { ...base, env };
  };
}

function isScrubbed(upper: string): boolean {
  if (denylist.has(upper)) return true;
  // GitHub Actions passes `with:` inputs as INPUT_<NAME>, keeping hyphens.
  return upper.startsWith("INPUT_") && denylist.has(upper.slice("INPUT_".length).replaceAll("-", "_"));
}

function looksLikeCredential(upper: string): boolean {
  if (STRICT_PROTECTED.has(upper) || upper.startsWith("LC_")) return false;
  const normalized = upper.replaceAll("-", "_");
  return CREDENTIAL_PATTERNS.some((pattern) => pattern.test(normalized));
}

function parseMode(value: string): BashEnvSanitizeMode | undefined {
  switch (value.trim().toLowerCase()) {
    case "off":
    case "0":
    case "false":
    case "none":
      return "off";
    case "scrub":
    case "1":
    case "true":
    case "on":
      return "scrub";
    case "strict":
      return "strict";
    default:
      return undefined;
  }
}

function isTruthyFlag(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return v !== "" && v !== "0" && v !== "false";
}
