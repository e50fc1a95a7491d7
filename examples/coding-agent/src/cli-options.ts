import { parseArgs } from "node:util";
import { HostError } from "./host-error.js";
import { type McpCommand, parseMcpCommand } from "./mcp-command.js";

/** What the command line asked for. */
export interface CliOptions {
  /** `provider:id` of a pi-ai model; absent: the embedded scripted model. */
  model?: string;
  /** Workspace of a real model's tools. Default: the current directory. */
  cwd?: string;
  /** Run `bash` and `write` without asking. */
  yes: boolean;
  /** A session file to load and continue. */
  resume?: string;
  /** Where a new session is saved. Default: a fresh file in the temp directory. */
  session?: string;
  /** Delay before each event of the scripted model, in ms. */
  delayMs?: number;
  /** The wait, in ms, that the scripted model's one rate-limit error asks for (`--retry-after-ms`). */
  retryAfterMs?: number;
  /** A task given on the command line (joined positionals). */
  task?: string;
  /** Stdio MCP servers whose tools the agent gets (`--mcp`, repeatable), in order. */
  mcp?: McpCommand[];
  /** Each turn ends after this many model requests (`--max-steps`). */
  maxSteps?: number;
  /** Each turn ends once it cost this much, in dollars (`--max-cost`). */
  maxCost?: number;
  /** Print each turn's OpenTelemetry span tree (`--trace`). */
  trace?: boolean;
  help: boolean;
}

/** The `--help` text. */
export const USAGE = `Usage: coding-agent [options] [task]

A terminal coding agent built on Turnkit. Without --model it plays a scripted
session (no key, no network) in a temporary copy of ./sample-project.

Options:
  --model <provider:id>  use a real pi-ai model, e.g. anthropic:claude-sonnet-4-5
                         (key from the provider's usual env var, e.g. ANTHROPIC_API_KEY)
  --cwd <dir>            workspace of a real model's tools (default: current directory)
  -y, --yes              run bash and write without asking
  --resume <file>        continue a saved session (JSONL)
  --session <file>       where to save a new session
  --delay-ms <n>         scripted model: delay before each streamed event
  --retry-after-ms <n>   scripted model: the wait its one rate limit asks for
                         (default 2100)
  --mcp "<command> <args>"
                         start an MCP server over stdio and give the agent its
                         tools (repeatable); the banner lists them
  --max-steps <n>        end a turn after n model requests (budget_exceeded)
  --max-cost <usd>       end a turn once it cost this much (models with prices)
  --trace                print each turn's OpenTelemetry spans as a tree
  -h, --help             show this help

In a terminal: type a task and press Enter. While the agent runs, Enter sends
steering, Alt+Enter (or a "/queue " prefix) queues a follow-up, Esc or Ctrl+C
aborts the run; a second Ctrl+C exits.`;

/**
 * Parses `argv` (without `node` and the script). A leading `--`, which
 * `pnpm start -- --yes` passes on, is skipped. Throws `HostError` (`usage`)
 * naming the bad flag or value; never exits the process.
 */
export function parseCliOptions(argv: readonly string[]): CliOptions {
  let parsed: ReturnType<typeof parseWithNode>;
  try {
    parsed = parseWithNode(argv[0] === "--" ? argv.slice(1) : argv);
  } catch (error) {
    throw new HostError("usage", `${(error as Error).message} (see --help)`);
  }
  const { values, positionals } = parsed;
  const options: CliOptions = { yes: values.yes === true, help: values.help === true };
  if (values.trace === true) options.trace = true;
  if (values.model !== undefined) {
    if (!/^[^:\s]+:\S+$/.test(values.model))
      throw new HostError(
        "usage",
        `--model expects provider:id (e.g. anthropic:claude-sonnet-4-5), got "${values.model}"`,
      );
    options.model = values.model;
  }
  if (values.cwd !== undefined) options.cwd = values.cwd;
  if (values.resume !== undefined) options.resume = values.resume;
  if (values.session !== undefined) options.session = values.session;
  if (values["delay-ms"] !== undefined) {
    const delay = Number(values["delay-ms"]);
    if (!Number.isFinite(delay) || delay < 0)
      throw new HostError("usage", `--delay-ms expects a number of milliseconds >= 0, got "${values["delay-ms"]}"`);
    options.delayMs = delay;
  }
  if (values["retry-after-ms"] !== undefined) {
    const wait = Number(values["retry-after-ms"]);
    if (!Number.isFinite(wait) || wait < 0)
      throw new HostError(
        "usage",
        `--retry-after-ms expects a number of milliseconds >= 0, got "${values["retry-after-ms"]}"`,
      );
    options.retryAfterMs = wait;
  }
  if (values.mcp !== undefined) options.mcp = values.mcp.map(parseMcpCommand);
  if (values["max-steps"] !== undefined) {
    const steps = Number(values["max-steps"]);
    if (!Number.isInteger(steps) || steps < 1)
      throw new HostError(
        "usage",
        `--max-steps expects a whole number of model requests >= 1, got "${values["max-steps"]}"`,
      );
    options.maxSteps = steps;
  }
  if (values["max-cost"] !== undefined) {
    const cost = Number(values["max-cost"]);
    if (!Number.isFinite(cost) || cost <= 0)
      throw new HostError("usage", `--max-cost expects an amount in dollars > 0, got "${values["max-cost"]}"`);
    options.maxCost = cost;
  }
  if (positionals.length > 0) options.task = positionals.join(" ");
  return options;
}

function parseWithNode(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      model: { type: "string" },
      cwd: { type: "string" },
      yes: { type: "boolean", short: "y" },
      resume: { type: "string" },
      session: { type: "string" },
      "delay-ms": { type: "string" },
      "retry-after-ms": { type: "string" },
      mcp: { type: "string", multiple: true },
      "max-steps": { type: "string" },
      "max-cost": { type: "string" },
      trace: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
