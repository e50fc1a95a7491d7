import { PiTurnRunner, type ActionRequestAnswerer, type LlmRetryOptions, type TurnBudget } from "@turnkit/agent-core";
import type { Tracer } from "@opentelemetry/api";
import {
  createAgentRuntime,
  createCompactionExtension,
  toRunTurnInput,
  type AgentRuntime,
  type CompactionOptions,
  type Extension,
} from "@turnkit/agent-runtime";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { createChangedFilesReminderExtension } from "./changed-files-reminder-extension.js";
import { createExploreExtension } from "./explore-extension.js";
import type { ModelChoice } from "./model-choice.js";
import { PERMISSION_EXTENSION_ID, createPermissionExtension, type AskPermission } from "./permission-extension.js";
import type { SessionStore } from "./session-store.js";
import { SteeringInbox } from "./steering-inbox.js";
import { createSystemPromptExtension } from "./system-prompt-extension.js";
import { createWorkspaceToolsExtension } from "./workspace-tools-extension.js";

/** Options of {@link CodingAgentHost.create}. */
export interface CodingAgentHostOptions {
  /** The directory the tools work in. */
  workspaceDir: string;
  model: ModelChoice;
  /** Persists every history change and holds the history the next turn starts from. */
  store: SessionStore;
  /** Asked before `bash` and `write`. */
  askPermission: AskPermission;
  /** `--yes`: the permission extension is switched off. */
  autoApprove?: boolean;
  /** Receives every `RuntimeEvent` of every turn, in order (the renderer, a recorder). */
  onEvent: (event: RuntimeEvent) => void;
  /** Options of the compaction extension, over the model's own (`ModelChoice.compaction`). */
  compaction?: CompactionOptions;
  /** Transport retry of model requests. Default: Turnkit's (5 retries, backoff, Retry-After honoured). */
  llmRetry?: LlmRetryOptions | false;
  /** MCP servers (`@turnkit/agent-mcp` extensions) whose tools join every turn, after the workspace tools. */
  mcpServers?: readonly Extension[];
  /** Answers what a turn asks the user (an MCP server's elicitation); none: every question is declined. */
  answerActionRequest?: ActionRequestAnswerer;
  /** Limits of every turn (`--max-steps`, `--max-cost`). */
  budget?: TurnBudget;
  /** Where each turn's spans go (`--trace`). Default: the global OpenTelemetry tracer, a no-op without an SDK. */
  tracer?: Tracer;
}

/** How a turn ended. */
export interface TurnReport {
  turnId: string;
  outcome: TurnOutcome;
  /** Wall time of `runTurn`, in ms. */
  wallMs: number;
}

/**
 * The host: the extensions resolved once into an `AgentRuntime`, one
 * `PiTurnRunner`, the session store and the steering inbox. Each task is one
 * turn: assemble the extensions' contributions, add the host's parts (the
 * model, the history, the event writer, steering, persistence) with
 * `toRunTurnInput`, run it. Turns of one host run one at a time.
 */
export class CodingAgentHost {
  /** Steering and follow-ups typed while a turn runs. */
  readonly inbox = new SteeringInbox();
  private readonly runner: PiTurnRunner;

  private constructor(
    private readonly options: CodingAgentHostOptions,
    private readonly runtime: AgentRuntime,
  ) {
    this.runner = new PiTurnRunner({
      workspaceDir: options.workspaceDir,
      ...(options.tracer && { telemetry: { tracer: options.tracer } }),
    });
  }

  /** Builds the runtime (rejects with `TurnkitConfigError` when an extension is malformed). */
  static async create(options: CodingAgentHostOptions): Promise<CodingAgentHost> {
    const runtime = await createAgentRuntime({
      base: [
        createSystemPromptExtension(),
        createWorkspaceToolsExtension({ workspaceDir: options.workspaceDir }),
        createExploreExtension({ workspaceDir: options.workspaceDir, llm: options.model.explore ?? options.model.llm }),
        ...(options.mcpServers ?? []),
        createPermissionExtension({ ask: options.askPermission }),
        createChangedFilesReminderExtension(),
        createCompactionExtension({ ...options.model.compaction, ...options.compaction }),
      ],
    });
    if (options.autoApprove) runtime.setEnabled(PERMISSION_EXTENSION_ID, false);
    return new CodingAgentHost(options, runtime);
  }

  /** The session id every turn runs under. */
  get sessionId(): string {
    return this.options.store.header.sessionId;
  }

  /** The extensions of the runtime, in order (for the banner). */
  get extensions(): readonly string[] {
    return this.runtime.extensions;
  }

  /** Releases what the extensions hold (MCP server processes), so the process can exit. Call it once, at the end. */
  dispose(): Promise<void> {
    return this.runtime.dispose();
  }

  /**
   * Runs `text` as one turn on top of the stored history. Resolves with the
   * outcome (never rejects for a failing model, tool or hook: those are a
   * `failed` outcome); `signal` aborts the turn.
   */
  async runTurn(text: string, signal?: AbortSignal): Promise<TurnReport> {
    const { store, model, workspaceDir, onEvent, llmRetry, budget, answerActionRequest } = this.options;
    const turnId = store.beginTurn();
    const history = store.messages;
    const assembled = await this.runtime.assembleTurn({
      sessionId: this.sessionId,
      turnId,
      data: { workspaceDir, history },
    });
    for (const start of assembled.turnStartHandlers) await start();
    const input = toRunTurnInput(assembled, {
      userMessage: { text },
      history,
      llm: model.llm,
      workspaceDir,
      disableBuiltinToolFallback: true,
      eventWriter: { push: onEvent },
      getSteeringMessages: this.inbox.getSteeringMessages,
      tryBeginClose: this.inbox.tryBeginClose,
      hooks: { onHistoryChangedHook: store.onHistoryChanged },
      ...(signal && { signal }),
      ...(llmRetry !== undefined && { llmRetry }),
      ...(budget && { budget }),
      ...(answerActionRequest && { answerActionRequest }),
    });
    const started = performance.now();
    // agent-core's system clock unrefs its timers, so a retry backoff alone
    // would let a CLI process exit in the middle of the turn: hold it open.
    const keepAlive = setInterval(() => {}, 60_000);
    let outcome: TurnOutcome;
    try {
      outcome = await this.runner.runTurn(input);
    } finally {
      clearInterval(keepAlive);
    }
    const wallMs = performance.now() - started;
    for (const end of assembled.turnEndHandlers) await end({ outcome });
    return { turnId, outcome, wallMs };
  }
}
