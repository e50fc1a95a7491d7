import { type Clock, type TurnLogger } from "@turnkit/agent-core";
import { systemClock } from "@turnkit/agent-core/internal";
import { isValidExtensionId } from "@turnkit/agent-runtime";
import {
  DEFAULT_CALL_MAX_DURATION_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RESTART_POLICY,
  DEFAULT_SAMPLING_MAX_TOKENS,
  DEFAULT_SHUTDOWN_GRACE_MS,
} from "./defaults.js";
import { McpConfigError } from "./mcp-config-error.js";
import type {
  McpExtensionOptions,
  McpLogLevel,
  McpRestartPolicy,
  McpRoot,
  McpSamplingPolicy,
  McpElicitationPolicy,
  McpTransportSettings,
} from "./mcp-options.js";
import { count, isRecord, kindOf, optionalString, quoted, rejectUnknownKeys, stringRecord } from "./option-checks.js";
import { validateServer } from "./validate-server.js";
import { type NormalisedRoot, normaliseRoots } from "./roots.js";
import type { McpServerStatus } from "./mcp-status.js";
import { TOOL_NAME_PATTERN } from "./tool-names.js";

/** Options after validation, every default filled in. */
export interface McpSettings {
  readonly id: string;
  readonly description: string;
  readonly transport: McpTransportSettings;
  readonly toolPrefix: string;
  readonly toolNames: Readonly<Record<string, string>>;
  readonly callTimeoutMs: number;
  readonly callMaxDurationMs: number;
  readonly maxResultChars: number;
  readonly maxMessageBytes: number;
  readonly connectTimeoutMs: number;
  readonly restart: Required<McpRestartPolicy>;
  readonly shutdownGraceMs: number;
  readonly clock: Clock;
  readonly logger: TurnLogger | undefined;
  readonly logLevel: McpLogLevel | undefined;
  /** `undefined`: the client declares no roots capability. */
  readonly roots: readonly NormalisedRoot[] | undefined;
  /** `undefined`: sampling is refused. */
  readonly sampling: Required<McpSamplingPolicy> | undefined;
  /** `undefined`: elicitation is refused. */
  readonly elicitation: McpElicitationPolicy | undefined;
  readonly onStatus: ((status: McpServerStatus) => void) | undefined;
}

/** Every option of `createMcpExtension`; a key added to the interface must be listed here to compile. */
const OPTION_KEYS: Record<keyof McpExtensionOptions, true> = {
  id: true,
  description: true,
  server: true,
  toolPrefix: true,
  toolNames: true,
  callTimeoutMs: true,
  callMaxDurationMs: true,
  maxResultChars: true,
  maxMessageBytes: true,
  connectTimeoutMs: true,
  restart: true,
  shutdownGraceMs: true,
  clock: true,
  logger: true,
  logLevel: true,
  roots: true,
  sampling: true,
  elicitation: true,
  onStatus: true,
};

const LOG_LEVELS: readonly McpLogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

const RESTART_KEYS: Record<keyof McpRestartPolicy, true> = {
  maxRestarts: true,
  backoffMs: true,
  maxBackoffMs: true,
  healthyAfterMs: true,
};

/**
 * Checks `createMcpExtension`'s options and fills in the defaults. Throws
 * {@link McpConfigError} naming the first bad field; never starts anything.
 */
export function validateMcpOptions(options: McpExtensionOptions): McpSettings {
  if (!isRecord(options))
    throw new McpConfigError({ field: "options", problem: `must be an object, got ${kindOf(options)}` });
  rejectUnknownKeys(options, OPTION_KEYS, "");
  const { id, server } = options;
  if (typeof id !== "string" || !isValidExtensionId(id)) {
    throw new McpConfigError({
      field: "id",
      problem: `must be a lower-case extension id ([a-z0-9][a-z0-9._-]*, at most 64 characters), got ${quoted(id)}`,
    });
  }
  const transport = validateServer(server);
  const description = optionalString(options.description, "description") ?? describeServer(transport);
  const toolPrefix = optionalString(options.toolPrefix, "toolPrefix") ?? "";
  if (!/^[A-Za-z0-9_-]{0,63}$/.test(toolPrefix)) {
    throw new McpConfigError({
      field: "toolPrefix",
      problem: `may hold only letters, digits, "_" and "-" (at most 63), got ${quoted(toolPrefix)}`,
    });
  }
  const toolNames = stringRecord(options.toolNames, "toolNames");
  for (const [serverName, exposed] of Object.entries(toolNames)) {
    if (!TOOL_NAME_PATTERN.test(exposed)) {
      throw new McpConfigError({
        field: `toolNames.${serverName}`,
        problem: `must be a tool name (letters, digits, "_" or "-", 1 to 64), got ${quoted(exposed)}`,
      });
    }
  }
  if (options.onStatus !== undefined && typeof options.onStatus !== "function") {
    throw new McpConfigError({ field: "onStatus", problem: `must be a function, got ${kindOf(options.onStatus)}` });
  }
  return {
    id,
    description,
    transport,
    toolPrefix,
    toolNames,
    callTimeoutMs: count(options.callTimeoutMs, "callTimeoutMs", DEFAULT_CALL_TIMEOUT_MS, 1),
    callMaxDurationMs: count(options.callMaxDurationMs, "callMaxDurationMs", DEFAULT_CALL_MAX_DURATION_MS, 1),
    maxResultChars: count(options.maxResultChars, "maxResultChars", DEFAULT_MAX_RESULT_CHARS, 1),
    maxMessageBytes: count(options.maxMessageBytes, "maxMessageBytes", DEFAULT_MAX_MESSAGE_BYTES, 1),
    connectTimeoutMs: count(options.connectTimeoutMs, "connectTimeoutMs", DEFAULT_CONNECT_TIMEOUT_MS, 1),
    restart: validateRestart(options.restart),
    shutdownGraceMs: count(options.shutdownGraceMs, "shutdownGraceMs", DEFAULT_SHUTDOWN_GRACE_MS, 0),
    clock: validateClock(options.clock),
    logger: validateLogger(options.logger),
    logLevel: validateLogLevel(options.logLevel),
    roots: options.roots === undefined ? undefined : normaliseRoots(options.roots as readonly McpRoot[], "roots"),
    sampling: validateSampling(options.sampling),
    elicitation: validateElicitation(options.elicitation),
    onStatus: options.onStatus,
  };
}

function validateRestart(restart: unknown): Required<McpRestartPolicy> {
  if (restart === undefined) return DEFAULT_RESTART_POLICY;
  if (!isRecord(restart))
    throw new McpConfigError({ field: "restart", problem: `must be an object, got ${kindOf(restart)}` });
  rejectUnknownKeys(restart, RESTART_KEYS, "restart.");
  const backoffMs = count(restart.backoffMs, "restart.backoffMs", DEFAULT_RESTART_POLICY.backoffMs, 0);
  const maxBackoffMs = count(
    restart.maxBackoffMs,
    "restart.maxBackoffMs",
    Math.max(backoffMs, DEFAULT_RESTART_POLICY.maxBackoffMs),
    0,
  );
  if (maxBackoffMs < backoffMs) {
    throw new McpConfigError({
      field: "restart.maxBackoffMs",
      problem: `must be at least restart.backoffMs (${backoffMs}), got ${maxBackoffMs}`,
    });
  }
  return {
    maxRestarts: count(restart.maxRestarts, "restart.maxRestarts", DEFAULT_RESTART_POLICY.maxRestarts, 0),
    backoffMs,
    maxBackoffMs,
    healthyAfterMs: count(restart.healthyAfterMs, "restart.healthyAfterMs", DEFAULT_RESTART_POLICY.healthyAfterMs, 0),
  };
}

function validateClock(clock: unknown): Clock {
  if (clock === undefined) return systemClock;
  const valid =
    isRecord(clock) &&
    typeof clock.now === "function" &&
    typeof clock.setTimeout === "function" &&
    typeof clock.clearTimeout === "function";
  if (!valid)
    throw new McpConfigError({ field: "clock", problem: "must be a Clock { now, setTimeout, clearTimeout }" });
  return clock as unknown as Clock;
}

function validateSampling(sampling: unknown): Required<McpSamplingPolicy> | undefined {
  if (sampling === undefined) return undefined;
  if (!isRecord(sampling))
    throw new McpConfigError({
      field: "sampling",
      problem: `must be an object { maxTokens? }, got ${kindOf(sampling)}`,
    });
  rejectUnknownKeys(sampling, { maxTokens: true }, "sampling.");
  return { maxTokens: count(sampling.maxTokens, "sampling.maxTokens", DEFAULT_SAMPLING_MAX_TOKENS, 1) };
}

function validateElicitation(elicitation: unknown): McpElicitationPolicy | undefined {
  if (elicitation === undefined) return undefined;
  if (!isRecord(elicitation))
    throw new McpConfigError({
      field: "elicitation",
      problem: `must be an object { timeoutMs? }, got ${kindOf(elicitation)}`,
    });
  rejectUnknownKeys(elicitation, { timeoutMs: true }, "elicitation.");
  if (elicitation.timeoutMs === undefined) return {};
  return { timeoutMs: count(elicitation.timeoutMs, "elicitation.timeoutMs", 0, 1) };
}

function validateLogger(logger: unknown): TurnLogger | undefined {
  if (logger === undefined) return undefined;
  const methods = ["debug", "warn", "error"] as const;
  if (!isRecord(logger) || methods.some((name) => logger[name] !== undefined && typeof logger[name] !== "function"))
    throw new McpConfigError({ field: "logger", problem: "must be a logger { debug?, warn?, error? } of functions" });
  return logger as TurnLogger;
}

function validateLogLevel(level: unknown): McpLogLevel | undefined {
  if (level === undefined) return undefined;
  if (!LOG_LEVELS.includes(level as McpLogLevel))
    throw new McpConfigError({
      field: "logLevel",
      problem: `must be one of ${LOG_LEVELS.join(", ")}, got ${quoted(level)}`,
    });
  return level as McpLogLevel;
}

/** A key the options do not have is a typo that would be ignored silently: it throws, naming the key. */
function describeServer(transport: McpTransportSettings): string {
  switch (transport.kind) {
    case "stdio":
      return `MCP server: ${[transport.command, ...transport.args].join(" ")}`;
    case "http":
      return `MCP server at ${transport.url.origin}${transport.url.pathname}`;
    default: {
      const unreachable: never = transport;
      return unreachable;
    }
  }
}
