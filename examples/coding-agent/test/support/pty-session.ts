import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { stripAnsi } from "../../src/ansi-style.js";
import { EXAMPLE_DIR, cliCommand, envWithoutProviderKeys } from "./cli-process.js";

/** True when util-linux `script` can give the CLI a pseudo-terminal here. */
export const canUsePty =
  process.platform === "linux" && spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;

/** A CLI running in a pseudo-terminal: type keys, wait for text to appear, read the raw output. */
export interface PtySession {
  /** Everything the program wrote to the terminal so far, escape sequences included. */
  readonly output: string;
  /** Writes keystrokes as typed (`\r` is Enter, `\x1b` Esc, `\x03` Ctrl+C). */
  type(keys: string): void;
  /** Resolves once `text` appears in the output (escapes stripped); rejects after `timeoutMs` with the output so far. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  kill(): void;
}

/**
 * Starts the CLI under `script -qfec`, which runs it on a fresh
 * pseudo-terminal of `columns` x 40 and relays our stdin to it, so the CLI
 * sees a TTY on both stdin and stdout, as in a real terminal.
 */
export function startPtySession(args: readonly string[], options: { columns?: number } = {}): PtySession {
  const command = [...cliCommand(), ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
  const shell = `stty cols ${options.columns ?? 160} rows 40 2>/dev/null; exec ${command}`;
  const child: ChildProcessWithoutNullStreams = spawn("script", ["-qfec", shell, "/dev/null"], {
    cwd: EXAMPLE_DIR,
    env: envWithoutProviderKeys({ TERM: "xterm-256color" }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: string) => {
    output += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));

  return {
    get output() {
      return output;
    },
    type(keys) {
      child.stdin.write(keys);
    },
    waitFor(text, timeoutMs = 45_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!stripAnsi(output).includes(text)) return;
          cleanUp();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanUp();
          reject(
            new Error(
              `"${text}" did not appear within ${timeoutMs} ms; the terminal showed:\n${stripAnsi(output).slice(-3000)}`,
            ),
          );
        }, timeoutMs);
        const cleanUp = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then(() => {
          if (listeners.has(check)) {
            cleanUp();
            reject(
              new Error(`the CLI exited before "${text}" appeared; it showed:\n${stripAnsi(output).slice(-3000)}`),
            );
          }
        });
        check();
      });
    },
    exited,
    kill() {
      child.kill("SIGKILL");
    },
  };
}
