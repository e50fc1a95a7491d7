/*
 * The count file: one JSON line per thing a test worker did (a model request,
 * a tool start or end, a session's turn starting or ending), appended by the
 * worker processes and read by them and by the tests. This module imports no
 * package, so the global setup (which runs before any package is built) may
 * load what imports it.
 */
import { readFileSync } from "node:fs";

/** One line of the count file: what happened, in which turn. */
export interface CountRecord {
  kind: "model" | "tool-start" | "tool-end" | "session-start" | "session-end" | "history" | "hook";
  turnId: string;
  sessionId: string;
  detail?: string;
  /** A tool start's idempotency key (`ctx.idempotencyKey`). */
  key?: string;
  /** A model request's place in its turn: the number of messages it sends (the same on every attempt). */
  position?: number;
  /** The worker process that recorded it. */
  worker?: string;
  at: number;
}

/**
 * The records of a count file (none when it does not exist yet). Other
 * processes append to it while it is read, and a read can end inside a
 * line being written: only lines ended by their newline count.
 */
export function readCountFile(file: string): CountRecord[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const complete = text.slice(0, text.lastIndexOf("\n") + 1);
  return complete
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as CountRecord);
}
