/**
 * Many readers on one signal (a host's shutdown signal handed to every
 * `follow`): each waits between reads on the log's notifications and on the
 * signal. Node warns once more than ten listeners wait on one signal, so a
 * wait must not add one of its own; and a wait that ended leaves nothing on it.
 */
import { abortListenerCount } from "@turnkit/agent-loop/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogNotifications } from "../src/reading/log-notifications.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";

let postgres: TestPostgres;
let notifications: LogNotifications;

beforeAll(async () => {
  postgres = await startTestPostgres();
  notifications = new LogNotifications(postgres.url, 10_000, 10_000);
}, 60_000);

afterAll(async () => {
  await notifications?.close();
  await postgres?.stop();
}, 30_000);

describe("log waits on one caller signal", () => {
  it("50 waits: no process warning, the abort ends each, and no listener is left on the signal", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      const watches = await Promise.all(Array.from({ length: 50 }, (_, index) => notifications.watch(`turn-${index}`)));
      // Half of them time out first: their ended waits must let go of the signal.
      await Promise.all(watches.slice(0, 25).map((watch) => watch.wait(1, controller.signal)));
      const waiting = watches.slice(25).map((watch) => watch.wait(60_000, controller.signal));
      expect(abortListenerCount(controller.signal)).toBeLessThanOrEqual(1);
      controller.abort();
      await Promise.all(waiting);
      for (const watch of watches) watch.stop();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
      expect(abortListenerCount(controller.signal)).toBe(0);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
