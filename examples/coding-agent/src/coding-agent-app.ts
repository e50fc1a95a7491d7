import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { McpServerStatus } from "@turnkit/agent-mcp";
import type { CompactionOptions } from "@turnkit/agent-runtime";
import { isTerminalEvent, type RuntimeEvent } from "@turnkit/protocol";
import { CodingAgentHost, type TurnReport } from "./agent-host.js";
import { createAutoPermission } from "./auto-permission.js";
import { yesNoQuestions } from "./yes-no-questions.js";
import type { CliOptions } from "./cli-options.js";
import { INTERACTIVE_EVENT_DELAY_MS, SESSION_DIR_NAME } from "./defaults.js";
import { HostError } from "./host-error.js";
import { InteractiveSession, type KeyInput } from "./interactive-session.js";
import { connectMcpServers, createMcpServerExtensions, describeMcpServer } from "./mcp-servers.js";
import { resolveModelChoice, type ModelChoice } from "./model-choice.js";
import type { AskPermission } from "./permission-extension.js";
import { createRenderer, type Renderer } from "./renderer.js";
import { createSampleWorkspace } from "./sample-workspace.js";
import {
  DEMO_USER,
  RECAP_USER,
  createDemoModel,
  createRecapModel,
  type ScriptedModelOptions,
  type ScriptedUser,
} from "./scripted-session.js";
import { createScriptedTypist } from "./scripted-typist.js";
import { SessionStore } from "./session-store.js";
import { createSpanRecorder } from "./span-tree.js";
import type { TextSink } from "./terminal-screen.js";

/** Everything a run of the coding agent needs; `main.ts` fills it from the process, tests from fixtures. */
export interface CodingAgentRunOptions {
  cli: CliOptions;
  /** The model of `cli.model`, when the caller resolved it already (`main.ts` does, to fail fast). */
  model?: ModelChoice;
  out: TextSink;
  /** `out` is a terminal (live region, spinners). */
  tty: boolean;
  color: boolean;
  /** Keys of the terminal; given only when stdin is a terminal, which makes the session interactive. */
  keys?: KeyInput;
  /** Aborts the running turn of a non-interactive run (SIGINT). */
  signal?: AbortSignal;
  /** Pace of the scripted model; `cli.delayMs` wins for the event delay, `cli.retryAfterMs` for the rate-limit wait. */
  scripted?: ScriptedModelOptions;
  /** Who plays the user of a non-interactive scripted run. Default: {@link DEMO_USER} ({@link RECAP_USER} when resuming). */
  scriptedUser?: ScriptedUser;
  /** Where the sample project is copied. Default: the temp directory. */
  workspaceParent?: string;
  /** Where new session files go when `cli.session` is not given. */
  sessionDir?: string;
  compaction?: CompactionOptions;
  /** Also receives every `RuntimeEvent` (tests record them). */
  onEvent?: (event: RuntimeEvent) => void;
}

/** What a run left behind. */
export interface CodingAgentRunResult {
  exitCode: number;
  sessionFile: string;
  workspaceDir: string;
  model: ModelChoice;
  reports: TurnReport[];
}

/**
 * Runs the coding agent: resolves the model (failing fast on a bad model or
 * a missing key, before anything is written), opens or starts the session
 * file and the workspace, builds the host, then runs interactively when
 * `keys` is given and as a batch otherwise. Rejects with `HostError` for
 * problems the user can fix.
 */
export async function runCodingAgent(options: CodingAgentRunOptions): Promise<CodingAgentRunResult> {
  const { cli } = options;
  const interactive = options.keys !== undefined;
  const scriptedPace: ScriptedModelOptions = {
    ...options.scripted,
    eventDelayMs:
      cli.delayMs ?? options.scripted?.eventDelayMs ?? (interactive ? INTERACTIVE_EVENT_DELAY_MS : undefined),
    retryAfterMs: cli.retryAfterMs ?? options.scripted?.retryAfterMs,
  };
  const model =
    options.model ??
    (cli.model ? resolveModelChoice(cli.model) : undefined) ??
    (cli.resume ? createRecapModel(scriptedPace) : createDemoModel(scriptedPace));
  if (!interactive && !model.scripted && !cli.task) {
    throw new HostError(
      "usage",
      'no task: pass one as an argument or on stdin, e.g. coding-agent --model anthropic:claude-sonnet-4-5 "fix the failing test"',
    );
  }
  const { store, workspaceDir, isSample } = await openSession(options, model);
  const renderer = createRenderer({ out: options.out, tty: options.tty, color: options.color });

  const session = interactive
    ? new InteractiveSession({ input: options.keys!, renderer, model, ...autoplayOf(cli, model) })
    : undefined;
  const batchUser =
    options.scriptedUser ?? (cli.resume ? RECAP_USER : { ...DEMO_USER, ...(cli.task && { task: cli.task }) });
  const askPermission: AskPermission = session
    ? session.askPermission
    : model.scripted
      ? createAutoPermission(
          renderer,
          (request) => batchUser.answerPermission(request),
          "answered by the scripted session: no terminal",
        )
      : createAutoPermission(renderer, () => false, "no terminal to ask; --yes allows");

  const askQuestion: AskPermission =
    session || model.scripted ? askPermission : createAutoPermission(renderer, () => false, "no terminal to ask");

  let typist: (event: RuntimeEvent) => void = () => {};
  const mcpServers = createMcpServerExtensions({ commands: cli.mcp ?? [], demo: model.scripted && !cli.resume });
  const spans = cli.trace ? createSpanRecorder() : undefined;
  const host = await CodingAgentHost.create({
    workspaceDir,
    model,
    store,
    askPermission,
    // A server's yes/no question is asked like a permission: at the prompt in a terminal, by the scripted user
    // of the demo, and declined without a terminal. --yes allows tool calls, never answers a question.
    answerActionRequest: yesNoQuestions(askQuestion),
    autoApprove: cli.yes,
    compaction: options.compaction,
    mcpServers,
    ...budgetOf(cli),
    ...(spans && { tracer: spans.tracer }),
    onEvent: (event) => {
      renderer.handle(event);
      // The turn's spans have ended when its terminal status is emitted.
      if (spans && isTerminalEvent(event)) for (const line of spans.takeTree()) renderer.notice(`  ${line}`);
      session?.onEvent(event);
      typist(event);
      options.onEvent?.(event);
    },
  });

  let reports: TurnReport[] = [];
  let exitCode: number;
  try {
    const mcp = await connectMcpServers(mcpServers);
    printBanner(renderer, {
      model,
      workspaceDir,
      isSample,
      store,
      yes: cli.yes,
      interactive,
      resumed: cli.resume !== undefined,
      extensions: host.extensions,
      mcp,
    });
    if (session) {
      exitCode = await session.run(host);
      reports = session.reports;
    } else {
      if (model.scripted) {
        typist = createScriptedTypist(batchUser, (text) => {
          host.inbox.steer(text);
          renderer.userInput("steering", text);
        });
      }
      exitCode = await runBatch(
        host,
        renderer,
        model,
        model.scripted ? batchUser.task : cli.task!,
        reports,
        options.signal,
      );
    }
  } finally {
    await host.dispose();
  }
  renderer.notice(`session saved: ${store.file} (continue with --resume ${store.file})`);
  renderer.close();
  return { exitCode, sessionFile: store.file, workspaceDir, model, reports };
}

/** Runs `task` and then every follow-up, one turn each. Exit code 0 when all completed, 130 when aborted, else 1. */
async function runBatch(
  host: CodingAgentHost,
  renderer: Renderer,
  model: ModelChoice,
  task: string,
  reports: TurnReport[],
  signal?: AbortSignal,
): Promise<number> {
  let next: string | undefined = task;
  while (next !== undefined) {
    renderer.userInput("task", next);
    const report = await host.runTurn(next, signal);
    reports.push(report);
    renderer.summary({ showCost: model.hasPrices });
    if (report.outcome.kind !== "completed") return report.outcome.kind === "aborted" ? 130 : 1;
    next = host.inbox.takeNextTask();
  }
  return 0;
}

/** `--max-steps` and `--max-cost` as the turn budget, when given. */
function budgetOf(cli: CliOptions): { budget?: { maxSteps?: number; maxCost?: number } } {
  if (cli.maxSteps === undefined && cli.maxCost === undefined) return {};
  return {
    budget: {
      ...(cli.maxSteps !== undefined && { maxSteps: cli.maxSteps }),
      ...(cli.maxCost !== undefined && { maxCost: cli.maxCost }),
    },
  };
}

/** Interactive autoplay: the demo for a fresh scripted session, else a task given on the command line. */
function autoplayOf(cli: CliOptions, model: ModelChoice): { autoplay?: ScriptedUser } {
  if (model.scripted && !cli.resume) return { autoplay: { ...DEMO_USER, ...(cli.task && { task: cli.task }) } };
  if (cli.task) return { autoplay: { task: cli.task, answerPermission: () => false } };
  return {};
}

async function openSession(
  options: CodingAgentRunOptions,
  model: ModelChoice,
): Promise<{ store: SessionStore; workspaceDir: string; isSample: boolean }> {
  const { cli } = options;
  if (cli.resume) {
    const store = await SessionStore.open(cli.resume);
    const workspaceDir = path.resolve(cli.cwd ?? store.header.workspaceDir);
    await assertDirectory(workspaceDir, cli.cwd ? "--cwd" : "the session's workspace");
    return { store, workspaceDir, isSample: false };
  }
  if (model.scripted) {
    const workspaceDir = await createSampleWorkspace(options.workspaceParent);
    const file = cli.session ?? path.join(path.dirname(workspaceDir), "session.jsonl");
    return {
      store: await SessionStore.create({ file, workspaceDir, model: model.label }),
      workspaceDir,
      isSample: true,
    };
  }
  const workspaceDir = path.resolve(cli.cwd ?? process.cwd());
  await assertDirectory(workspaceDir, "--cwd");
  const sessionDir = options.sessionDir ?? path.join(tmpdir(), SESSION_DIR_NAME, "sessions");
  const file =
    cli.session ??
    path.join(sessionDir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}.jsonl`);
  return {
    store: await SessionStore.create({ file, workspaceDir, model: model.label }),
    workspaceDir,
    isSample: false,
  };
}

async function assertDirectory(dir: string, what: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new HostError("workspace", `${what} ${dir} is not a directory`);
}

function printBanner(
  renderer: Renderer,
  facts: {
    model: ModelChoice;
    workspaceDir: string;
    isSample: boolean;
    store: SessionStore;
    yes: boolean;
    interactive: boolean;
    resumed: boolean;
    extensions: readonly string[];
    mcp: readonly McpServerStatus[];
  },
): void {
  const { model, store } = facts;
  renderer.notice(`turnkit coding-agent · ${model.label}`);
  renderer.notice(`workspace ${facts.workspaceDir}${facts.isSample ? " (a fresh copy of sample-project)" : ""}`);
  renderer.notice(`extensions ${facts.extensions.join(", ")}`);
  for (const server of facts.mcp) renderer.notice(describeMcpServer(server));
  if (facts.resumed)
    renderer.notice(
      `resumed ${store.file}: ${store.messages.length} messages from ${store.turnCount} turn${store.turnCount === 1 ? "" : "s"}`,
    );
  const asking = facts.yes
    ? "bash and write run without asking (--yes)"
    : facts.interactive
      ? "bash and write ask first"
      : model.scripted
        ? "bash and write ask first; with no terminal the scripted user answers"
        : "bash and write ask first; with no terminal they are refused (--yes allows)";
  renderer.notice(asking);
}
