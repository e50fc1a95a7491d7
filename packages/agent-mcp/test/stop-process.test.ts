import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { stopProcess } from "../src/stop-process.js";
import { isRunning } from "./fixtures/stdio-fixture.js";

/** A process that ignores end-of-input and SIGTERM (only SIGKILL ends it); resolves once its SIGTERM handler is in place. */
async function stubbornProcess(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); process.stdout.write('ready');"],
    { stdio: ["pipe", "pipe", "ignore"] },
  );
  await new Promise((resolve) => child.stdout!.once("data", resolve));
  return child;
}

describe("stopping a stdio server's process", () => {
  it("resolves only once a process that needed SIGKILL has exited, even when its exit is seen after the grace", async () => {
    const child = await stubbornProcess();
    let exitSeen = false;
    // The exit reaches this process 300 ms late, as it can on a loaded machine: far more than the 20 ms grace.
    const exited = new Promise<void>((resolve) =>
      child.once("exit", () =>
        setTimeout(() => {
          exitSeen = true;
          resolve();
        }, 300),
      ),
    );
    child.stdin!.end();
    await stopProcess(child.pid!, exited, 20);
    expect(exitSeen).toBe(true);
    expect(child.signalCode).toBe("SIGKILL");
    expect(isRunning(child.pid!)).toBe(false);
  });

  it("resolves at once when the process exits on end-of-input", async () => {
    const child = spawn(
      process.execPath,
      ["-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));"],
      {
        stdio: ["pipe", "ignore", "ignore"],
      },
    );
    await new Promise((resolve) => child.once("spawn", resolve));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin!.end();
    await stopProcess(child.pid!, exited, 5_000);
    expect(child.exitCode).toBe(0);
    expect(child.signalCode).toBeNull();
  });
});
