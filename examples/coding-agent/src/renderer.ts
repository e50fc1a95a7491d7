import { COMPACTION_RECORD_KIND, type CompactionRecord } from "@turnkit/agent-runtime";
import type {
  DebugTracePayload,
  MessagePersistedPayload,
  RuntimeEvent,
  RuntimeWarningPayload,
  SessionStatusPayload,
  StreamChunk,
  StreamToolCallChunk,
} from "@turnkit/protocol";
import { createStyle, type Style } from "./ansi-style.js";
import { createSubAgentLines } from "./sub-agent-lines.js";
import { SPINNER_FRAMES, SPINNER_INTERVAL_MS } from "./defaults.js";
import { createLiveScreen, createPlainScreen, type Screen, type TextSink } from "./terminal-screen.js";
import { lastLineOf, toolResultSummary, toolTitle } from "./tool-line.js";
import {
  emptyTurnStats,
  formatDuration,
  formatTurnSummary,
  formatTurnTiming,
  readTurnEvent,
  type TurnStats,
} from "./turn-stats.js";

/** Options of {@link createRenderer}. */
export interface RendererOptions {
  out: TextSink;
  /** A terminal: a live region with spinners and the input line. Otherwise plain, append-only text. */
  tty: boolean;
  /** ANSI colours (see `shouldUseColor`). */
  color: boolean;
  /** Animate spinners with a timer. Default: `tty`. */
  animate?: boolean;
}

/** What the user typed, as echoed into the transcript. */
export type UserInputKind = "task" | "steering" | "follow-up";

/**
 * Turns a session into terminal output. `handle` is the event writer of every
 * turn and depends on nothing but the events and the options, so the same
 * events always print the same text; the other methods print what the host
 * itself knows (what the user typed, permission answers, notices, the
 * summary). Output without colour reads on its own: every line says what it
 * is with a symbol and words, never with colour alone.
 */
export interface Renderer {
  /** Renders one `RuntimeEvent`; never throws. */
  handle(event: RuntimeEvent): void;
  /** Echoes user input. */
  userInput(kind: UserInputKind, text: string): void;
  /** Prints the permission question and its answer; `note` says who answered when it was not the user. */
  permissionAnswered(
    request: { toolName: string; summary: string; question?: string },
    allowed: boolean,
    note?: string,
  ): void;
  /** A line from the host (banner, hints, warnings). */
  notice(text: string, tone?: "info" | "warn"): void;
  /** The summary of the turn that just ended, from its events: usage, cost and where the time went. */
  summary(options: { showCost: boolean }): TurnStats;
  /** The line at the bottom of a terminal (input or a question); `undefined` hides it. Ignored off a terminal. */
  setInputLine(line: string | undefined): void;
  /** Stops the spinner and leaves the cursor on a fresh line. */
  close(): void;
}

/** The question of a permission prompt (a yes/no question of its own, such as an MCP server's, when it has one). */
export function permissionQuestion(request: { toolName: string; summary: string; question?: string }): string {
  return `? action required: ${request.question ?? `allow ${request.toolName} \`${request.summary}\``}? [y/n]`;
}

interface RunningTool {
  toolName: string;
  title: string;
  /** The last line of output the tool streamed so far (bash). */
  progress?: string;
}

/** Creates a renderer writing to `options.out`. */
export function createRenderer(options: RendererOptions): Renderer {
  const style: Style = createStyle(options.color);
  const screen: Screen = options.tty ? createLiveScreen(options.out) : createPlainScreen(options.out);
  const animate = options.animate ?? options.tty;

  let stats = emptyTurnStats();
  let streaming: { messageId: string; kind: "text" | "thinking" } | undefined;
  const running = new Map<string, RunningTool>();
  const blockedByPermission = new Set<string>();
  let inputLine: string | undefined;
  let frame = 0;
  let spinner: ReturnType<typeof setInterval> | undefined;

  const ensureLineStart = () => {
    if (!screen.atLineStart) screen.write("\n");
  };
  const endStreaming = () => {
    ensureLineStart();
    streaming = undefined;
  };
  const line = (text: string) => {
    endStreaming();
    screen.write(`${text}\n`);
  };

  const refreshLive = () => {
    if (!options.tty) return;
    const lines = [...running.values()].map(
      (tool) =>
        `  ${style.cyan(SPINNER_FRAMES[frame % SPINNER_FRAMES.length]!)} ${style.bold(tool.toolName)} ${tool.title}${tool.progress ? style.dim(`  ${tool.progress}`) : ""}`,
    );
    if (inputLine !== undefined) lines.push(inputLine);
    screen.setLive(lines);
    const spin = animate && running.size > 0;
    if (spin && !spinner) {
      spinner = setInterval(() => {
        frame += 1;
        refreshLive();
      }, SPINNER_INTERVAL_MS);
      spinner.unref?.();
    } else if (!spin && spinner) {
      clearInterval(spinner);
      spinner = undefined;
    }
  };

  const streamDelta = (messageId: string, kind: "text" | "thinking", delta: string) => {
    if (streaming?.messageId !== messageId || streaming.kind !== kind) {
      endStreaming();
      streaming = { messageId, kind };
      if (kind === "thinking") screen.write(style.dim("  thinking: "));
    }
    if (kind === "text") {
      screen.write(delta);
      return;
    }
    // Thinking: dimmed, and indented under its label on every new line.
    const pieces = delta.split("\n");
    screen.write(pieces.map((piece) => style.dim(piece)).join(`\n${style.dim("            ")}`));
  };

  const toolFinished = (chunk: StreamToolCallChunk) => {
    running.delete(chunk.toolCallId);
    const ok = chunk.status === "finished";
    const refused = blockedByPermission.has(chunk.toolCallId);
    const parts = [toolTitle(chunk.toolName, chunk.arguments), toolResultSummary(chunk, refused)].filter(
      (part) => part !== "",
    );
    const duration =
      chunk.durationMs !== undefined && !refused ? style.dim(` · ${formatDuration(chunk.durationMs)}`) : "";
    const mark = ok ? style.green("✓") : style.red("✗");
    const [title, ...rest] = parts;
    line(
      `  ${mark} ${style.bold(chunk.toolName)} ${title ?? ""}${rest.length > 0 ? ` · ${rest.join(" · ")}` : ""}${duration}`,
    );
  };

  const onChunk = (messageId: string, chunk: StreamChunk) => {
    switch (chunk.kind) {
      case "text":
      case "thinking":
        streamDelta(messageId, chunk.kind, chunk.delta);
        return;
      case "tool_call":
        switch (chunk.status) {
          case "preparing":
            return;
          case "started":
            endStreaming();
            running.set(chunk.toolCallId, {
              toolName: chunk.toolName,
              title: toolTitle(chunk.toolName, chunk.arguments),
            });
            return;
          case "finished":
          case "failed":
            toolFinished(chunk);
            return;
          default: {
            const unknown: never = chunk.status;
            return unknown;
          }
        }
      case "finish":
        endStreaming();
        if (chunk.reason === "length") line(style.yellow("  ! the answer hit the output token limit"));
        return;
      default: {
        const unknown: never = chunk;
        return unknown;
      }
    }
  };

  const onTrace = (trace: DebugTracePayload) => {
    const attrs = trace.attrs ?? {};
    if (trace.phase === "llm.retry") {
      const error = (attrs.error ?? {}) as { code?: string; message?: string };
      // A retry wait is shown from its runtime.warning; giving up is detail only the trace has.
      if (attrs.type === "exhausted") {
        line(style.red(`  ✗ gave up after ${String(attrs.attempts)} attempts: ${error.message ?? "request failed"}`));
      }
      return;
    }
    if (trace.phase === "tool" && trace.message === "tool_execution_update" && typeof attrs.toolCallId === "string") {
      const tool = running.get(attrs.toolCallId);
      if (tool) tool.progress = lastLineOf(attrs.partialResult);
      return;
    }
    if (trace.phase === "tool" && attrs.blockedBy === "permission" && typeof attrs.toolCallId === "string") {
      blockedByPermission.add(attrs.toolCallId);
      return;
    }
    if (trace.phase === "steering" && trace.message === "steering received") {
      const where = attrs.boundary === "exit" ? "before the agent finished" : "at the next step";
      line(style.cyan(`  ↳ steering delivered ${where}`));
    }
  };

  /** A warning as it comes: a retry wait with ⟳, anything else the turn recovered from with ⚠. */
  const onWarning = (warning: RuntimeWarningPayload) => {
    const symbol = warning.code === "retry_wait" || warning.code === "timeout_retried" ? "⟳" : "⚠";
    line(style.yellow(`  ${symbol} ${warning.message}`));
  };

  /** A compaction, from the record that starts the replaced history: what was summarised, what was kept. */
  const onPersisted = (persisted: MessagePersistedPayload) => {
    if (persisted.reason !== "replaceMessages") return;
    const first = persisted.messages[0] as { role?: string; kind?: string; data?: unknown } | undefined;
    if (first?.role !== "host" || first.kind !== COMPACTION_RECORD_KIND) return;
    const record = first.data as CompactionRecord;
    const tokens = (count: number) => count.toLocaleString("en-US");
    const why = record.reason === "overflow" ? " after a context overflow" : "";
    line(
      style.cyan(
        `  ⟲ compacted${why}: ${record.summarisedMessages} earlier messages summarised by ${record.summaryModel}, ` +
          `the newest ${record.keptMessages} kept (≈${tokens(record.tokensBefore)} → ${tokens(record.tokensAfter)} tokens)`,
      ),
    );
  };

  const subAgentLines = createSubAgentLines({ style, line, callTitle: (id) => running.get(id)?.title });

  const onStatus = (status: SessionStatusPayload) => {
    switch (status.status) {
      case "running":
        stats = emptyTurnStats();
        running.clear();
        subAgentLines.clear();
        blockedByPermission.clear();
        return;
      case "completed":
        endStreaming();
        return;
      case "aborted":
        running.clear();
        line(style.yellow("  ■ aborted"));
        return;
      case "failed":
        running.clear();
        line(style.red(`  ✗ turn failed (${status.error.code}): ${status.error.message}`));
        return;
      default:
        endStreaming();
        return;
    }
  };

  return {
    handle(event) {
      try {
        if (event.origin) {
          subAgentLines.handle(event, event.origin);
          refreshLive();
          return;
        }
        readTurnEvent(stats, event);
        switch (event.type) {
          case "stream.resp":
            onChunk(event.payload.messageId, event.payload.chunk);
            break;
          case "debug.trace":
            onTrace(event.payload);
            break;
          case "session.status":
            onStatus(event.payload);
            break;
          case "runtime.warning":
            onWarning(event.payload);
            break;
          case "message.persisted":
            onPersisted(event.payload);
            break;
          case "action.required":
            break;
          default: {
            const unknown: never = event;
            return unknown;
          }
        }
        refreshLive();
      } catch {
        // Rendering is best effort: a display problem never fails a turn.
      }
    },
    userInput(kind, text) {
      const label = kind === "task" ? "" : kind === "steering" ? style.cyan("(steering) ") : style.cyan("(queued) ");
      if (kind === "task") line("");
      line(`${style.bold("›")} ${label}${text}`);
      refreshLive();
    },
    permissionAnswered(request, allowed, note) {
      const answer = allowed ? style.green("y") : style.red("n");
      line(`  ${style.yellow(permissionQuestion(request))} ${answer}${note ? style.dim(` (${note})`) : ""}`);
      refreshLive();
    },
    notice(text, tone = "info") {
      line(tone === "warn" ? style.yellow(text) : style.dim(text));
      refreshLive();
    },
    summary({ showCost }) {
      line(style.dim(`── ${formatTurnSummary(stats, { showCost })}`));
      if (stats.timing) line(style.dim(`── ${formatTurnTiming(stats.timing)}`));
      refreshLive();
      return { ...stats };
    },
    setInputLine(next) {
      inputLine = next;
      refreshLive();
    },
    close() {
      if (spinner) clearInterval(spinner);
      spinner = undefined;
      running.clear();
      inputLine = undefined;
      screen.setLive([]);
      screen.close();
    },
  };
}
