import { spawn, type SpawnOptions } from "node:child_process";
import { Type } from "@sinclair/typebox";
import { onAbort } from "@turnkit/agent-loop/internal";
import { createBashEnvSpawnHook, type BashEnvSpawnHookOptions } from "../../bash-env.js";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool, RuntimeToolResult } from "../runtime-tool.js";
import { TailBuffer, formatBytes } from "./text-output.js";
import { TURN_DEFAULTS } from "../../defaults.js";
import { realWorkspaceRoot } from "./workspace-path.js";

const bashParameters = Type.Object({
  command: Type.String({ description: "The command line, run with bash -c in the workspace root" }),
  timeout: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: `Timeout in seconds (default ${TURN_DEFAULTS.bashDefaultTimeoutMs / 1000}, at most ${TURN_DEFAULTS.bashMaxTimeoutMs / 1000})`,
    }),
  ),
});

/** What `bash` reports besides the output. */
export interface BashToolDetails {
  /** The exit code, or `null` when the process was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the process, if any. */
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** Bytes of stdout and stderr together; more than the text shows when `truncated`. */
  outputBytes: number;
  truncated: boolean;
  durationMs: number;
}

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  workspaceDir: string;
  /** How the child's environment is sanitised; resolved on every call. */
  bashEnv?: BashEnvSpawnHookOptions;
  /** Environment the child starts from before sanitising. Default `process.env`, read on every call. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
}

const UPDATE_INTERVAL_MS = 250;

/**
 * The built-in `bash` tool: runs `bash -c command` in the workspace root as
 * the leader of a new process group, with stdin closed and the environment
 * sanitised through {@link createBashEnvSpawnHook}.
 *
 * - Timeout (per call, default {@link TURN_DEFAULTS.bashDefaultTimeoutMs}) and abort
 *   both kill the whole process group (`SIGKILL`), so background children
 *   die too; the call then ends as an error result saying which.
 * - stdout and stderr are merged in arrival order; only the last
 *   {@link TURN_DEFAULTS.bashMaxOutputBytes} are kept, with a note when cut.
 * - A non-zero exit is an error result whose text ends with the exit code;
 *   `details.exitCode` carries it on every result.
 * - Partial output streams through `onUpdate` at most every 250 ms.
 *
 * Declares `executionMode: "sequential"`. The command itself is not confined
 * to the workspace: only its working directory is.
 */
export function createBashTool(options: BashToolOptions): RuntimeTool<typeof bashParameters, BashToolDetails> {
  const applyEnv = createBashEnvSpawnHook(options.bashEnv);
  return defineRuntimeTool<typeof bashParameters, BashToolDetails>({
    name: "bash",
    label: "Run command",
    description: `Run a bash command in the workspace root and return its combined stdout and stderr (the last ${formatBytes(TURN_DEFAULTS.bashMaxOutputBytes)}). Non-zero exit codes are reported as errors. Default timeout ${TURN_DEFAULTS.bashDefaultTimeoutMs / 1000} s. Stdin is closed; do not start interactive programs.`,
    parameters: bashParameters,
    executionMode: "sequential",
    async execute(_ctx, input, signal, onUpdate) {
      if (input.command.trim().length === 0) throw new Error("command is empty");
      const cwd = await realWorkspaceRoot(options.workspaceDir);
      const timeoutMs = Math.min(
        input.timeout !== undefined ? input.timeout * 1000 : TURN_DEFAULTS.bashDefaultTimeoutMs,
        TURN_DEFAULTS.bashMaxTimeoutMs,
      );
      signal.throwIfAborted();
      return runCommand(input.command, {
        spawnOptions: applyEnv({
          cwd,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...(options.baseEnv ?? process.env) },
        }),
        timeoutMs,
        signal,
        onOutput: (text) => onUpdate({ content: [{ type: "text", text }] }),
      });
    },
  });
}

interface RunCommandOptions {
  spawnOptions: SpawnOptions;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput: (text: string) => void;
}

function runCommand(command: string, options: RunCommandOptions): Promise<RuntimeToolResult<BashToolDetails>> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], options.spawnOptions);
    const output = new TailBuffer(TURN_DEFAULTS.bashMaxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let lastUpdate = 0;
    let graceTimer: NodeJS.Timeout | undefined;

    const onData = (chunk: Buffer) => {
      output.push(chunk);
      const now = Date.now();
      if (now - lastUpdate >= UPDATE_INTERVAL_MS) {
        lastUpdate = now;
        try {
          options.onOutput(output.text());
        } catch {
          // Progress only; a failing listener must not end the command.
        }
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);

    const killGroup = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      // A grandchild that left the group could hold the pipes open: stop waiting for it.
      graceTimer ??= setTimeout(() => finish(null, "SIGKILL"), TURN_DEFAULTS.bashKillGraceMs);
      graceTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    timer.unref();
    const stopListening = onAbort(options.signal, () => {
      aborted = true;
      killGroup();
    });

    const cleanUp = () => {
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      stopListening();
      child.stdout?.destroy();
      child.stderr?.destroy();
    };

    function finish(exitCode: number | null, exitSignal: NodeJS.Signals | null) {
      if (settled) return;
      settled = true;
      cleanUp();
      const details: BashToolDetails = {
        exitCode,
        signal: exitSignal,
        timedOut,
        aborted,
        outputBytes: output.total,
        truncated: output.truncated,
        durationMs: Date.now() - started,
      };
      const body = output.text();
      const cutNote = output.truncated
        ? `[Output cut: showing the last ${formatBytes(TURN_DEFAULTS.bashMaxOutputBytes)} of ${formatBytes(output.total)}]\n`
        : "";
      const shown = cutNote + (body.length > 0 ? body : "(no output)");
      if (aborted) {
        resolve({ content: [{ type: "text", text: `Command aborted.\n\n${shown}` }], details, isError: true });
      } else if (timedOut) {
        resolve({
          content: [
            { type: "text", text: `Command timed out after ${options.timeoutMs / 1000} s and was killed.\n\n${shown}` },
          ],
          details,
          isError: true,
        });
      } else if (exitCode !== 0) {
        const how = exitCode === null ? `was killed by ${exitSignal}` : `exited with code ${exitCode}`;
        resolve({ content: [{ type: "text", text: `${shown}\n\n[Command ${how}]` }], details, isError: true });
      } else {
        resolve({ content: [{ type: "text", text: shown }], details });
      }
    }

    child.once("error", (error) => {
      if (settled) return;
      settled = true;
      cleanUp();
      reject(new Error(`Could not run bash: ${error.message}`, { cause: error }));
    });
    child.once("close", (code, exitSignal) => finish(code, exitSignal));
  });
}
