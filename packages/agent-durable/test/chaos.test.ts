/*
 * Chaos: worker processes killed with SIGKILL at random moments while turns
 * stream, run tools (never, safe, parallel), wait for approvals, run a
 * sub-agent whose call waits for approval or three parallel sub-agent calls
 * (one streaming, one in a tool, one waiting for approval), get aborted
 * and steered, and their sessions are forked and rewound; some kills
 * freeze the worker instead, launch its id again and shut the old process
 * down once it woke up. Every
 * count kept outside the workers. Then the promises are checked on
 * everything that happened: no finished model request sent again, no
 * `never` call run twice, every log without gap and with one ending and a
 * valid event stream (a sub-agent's events one of their own), no
 * stored history with an unanswered call (and it holds exactly what the logs
 * announced), every accepted steering message delivered or handed back once,
 * every turn ended, every fork and rewind holds the history as the turn it
 * was cut at left it.
 *
 * The CI size fits the suite's budget; a larger run (README, "Testing"):
 * TURNKIT_DURABLE_CHAOS_KILLS=30 TURNKIT_DURABLE_CHAOS_SESSIONS=20
 * TURNKIT_DURABLE_CHAOS_WORKERS=3, and TURNKIT_DURABLE_CHAOS_SEED to repeat
 * a run's choices (the seed is printed; timing still differs).
 * TURNKIT_DURABLE_CHAOS_TWINS sets the share of the kills that are twins
 * (see `killer`; 0.3 unless set), TURNKIT_DURABLE_CHAOS_CUTS the share of
 * the others that cut every worker's database connections instead (the
 * server ends them, as at a restart; 0.2 unless set), and
 * TURNKIT_DURABLE_CHAOS_SHUTDOWNS the share of the rest that shut the worker
 * down cleanly instead (SIGTERM: `shutdown()`; 0.3 unless set), after which
 * it is started again. A shutdown promises more than a kill: every turn
 * running there is handed back (queued again) before its process exits, and
 * ends elsewhere (one whose row another session held then is left to the
 * other workers' next look, its launch's lease kept expired, never for a
 * whole lease); a turn whose ending was logged records its outcome there
 * and is never queued again or replayed (the test slows the outcome's write,
 * so a shutdown often finds one); once it began, the worker sends no model
 * request and starts no tool call; and it never gives up on the database.
 * A twin's old process is shut down the same way and checked so too, but
 * for what it sent (its worker id is the launch's beside it).
 */
import { assertRuntimeEventSequence, assertToolCallsAnswered } from "@turnkit/agent-core/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import { isTerminalEvent, type RuntimeEvent, type TurnOutcome } from "@turnkit/protocol";
import type { ChildProcess } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type DurableTurnRef, DurableTurnError, type SteerAnswer } from "../src/index.js";
import { assertLogInvariants, userTexts } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";
import type { CountRecord } from "./support/scenario-turns.js";
import { connectAdmin, slowOutcomeWrites } from "./support/admin-client.js";

const env = process.env;
const KILLS = Number(env.TURNKIT_DURABLE_CHAOS_KILLS ?? 3);
const SESSIONS = Number(env.TURNKIT_DURABLE_CHAOS_SESSIONS ?? 4);
const SEED = Number(env.TURNKIT_DURABLE_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** The share of kills that are twins (a freeze, a relaunch, a wake and a shutdown). */
const TWIN_SHARE = Number(env.TURNKIT_DURABLE_CHAOS_TWINS ?? 0.3);
/** The share of the other kills that end every worker's database connections instead of a process. */
const CUT_SHARE = Number(env.TURNKIT_DURABLE_CHAOS_CUTS ?? 0.2);
/** The share of the kills neither twins nor cuts that shut the worker down cleanly (SIGTERM: `shutdown()`) instead. */
const SHUTDOWN_SHARE = Number(env.TURNKIT_DURABLE_CHAOS_SHUTDOWNS ?? 0.3);
/** Turns each session runs at least (it goes on while kills are left). */
const TURNS_PER_SESSION = 2;
/** A turn that has not ended this long after it started is stuck: the test names it. */
const TURN_DEADLINE_MS = 180_000;
/** One worker by default: each kill then hits every running turn, wherever it is, for the price of one relaunch. */
const WORKERS = Array.from({ length: Number(env.TURNKIT_DURABLE_CHAOS_WORKERS ?? 1) }, (_, i) => `x${i + 1}`);
/** Long enough that a worker busy on a loaded machine is not taken for dead: here only killed workers recover. */
const WORKER_ENV = { LEASE_MS: "20000", CONCURRENCY: "8" };
/** What each turn does (see `chaosAnswer` in the test support); only `safe` calls may run again. */
const PLANS = ["stream", "tool", "safe", "parallel", "approval", "sub-agent", "sub-agents"] as const;

const fixture = useDurableFixture(WORKERS.map((id) => ({ id, env: WORKER_ENV })));

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function withDeadline<T>(work: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} did not end within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ChaosTurn {
  ref: DurableTurnRef;
  plan: (typeof PLANS)[number];
  steered?: { text: string; answer: SteerAnswer };
  approval?: "approved" | "denied";
  aborted?: boolean;
}

/**
 * Answers the turn's approval request (if it asks one) after a while; stops once the turn has ended. A sub-agent's
 * approval is a stored request, which an abort that found the turn queued (after a kill) withdraws when it ends the
 * turn: `respond` then refuses it with `request_withdrawn`, and there is nothing to answer.
 */
async function driveApproval(turn: ChaosTurn, random: () => number): Promise<void> {
  for (;;) {
    const events = await fixture.client.readEvents(turn.ref);
    if (events.some(isTerminalEvent)) return;
    const asked = events.find((e): e is RuntimeEvent<"action.required"> => e.type === "action.required");
    if (asked) {
      await sleep(100 + random() * 1200);
      const approved = random() < 0.7;
      try {
        await fixture.client.respond(
          turn.ref,
          asked.payload.requestId,
          approved ? { approved } : { approved, reason: "not now" },
        );
      } catch (error) {
        if (turn.aborted && DurableTurnError.isInstance(error) && error.code === "request_withdrawn") return;
        throw error;
      }
      turn.approval = approved ? "approved" : "denied";
      return;
    }
    await sleep(100);
  }
}

/** Steers and aborts some turns at random moments. */
async function driveHost(turn: ChaosTurn, random: () => number): Promise<void> {
  const steerAt = random() < 0.35 ? 200 + random() * 2500 : undefined;
  const abortAt = random() < 0.25 ? 300 + random() * 3000 : undefined;
  const steps: Promise<void>[] = [];
  if (steerAt !== undefined)
    steps.push(
      sleep(steerAt).then(async () => {
        const text = `steer: ${turn.ref.turnId} wants more`;
        turn.steered = { text, answer: await fixture.client.steer(turn.ref, { text }) };
      }),
    );
  if (abortAt !== undefined)
    steps.push(
      sleep(abortAt).then(async () => {
        turn.aborted = true;
        await fixture.client.abort(turn.ref);
      }),
    );
  await Promise.all(steps);
}

/**
 * Kills a random worker every so often and relaunches it with the same id (it
 * recovers its turns at launch), or cuts every worker's database connections
 * (`CUT_SHARE`), or shuts it down cleanly and starts it again
 * (`SHUTDOWN_SHARE`). One at a time: on a loaded machine
 * relaunches running together starve each other of CPU.
 */
async function killer(
  random: () => number,
  turns: ChaosTurn[],
  kills: Kill[],
  shutdowns: Shutdown[],
  relaunchMs: number[],
  hits: Map<string, number>,
): Promise<void> {
  for (let n = 0; n < KILLS; n++) {
    await sleep(400 + random() * 1400);
    const workerId = WORKERS[Math.floor(random() * WORKERS.length)]!;
    const twin = random() < TWIN_SHARE;
    if (!twin && random() < CUT_SHARE) {
      // The server ends every connection of the workers (a restart, a failover): a turn whose statement it cut
      // is handed back and goes on from its records, as after a kill of its worker at that moment.
      const at = Date.now();
      await cutWorkerConnections();
      // A worker hears of a connection's end only when it next reads from it: a statement it sends on it soon
      // after fails too, and hands its turn back then.
      for (const each of WORKERS) kills.push({ workerId: each, at, until: Date.now() + CUT_NOTICE_MS });
      hits.set("connections cut", (hits.get("connections cut") ?? 0) + 1);
      continue;
    }
    if (!twin && random() < SHUTDOWN_SHARE) {
      for (const turn of turns) {
        const phase = phaseOf(turn, await fixture.client.readEvents(turn.ref));
        if (phase) hits.set(`shutdown: ${phase}`, (hits.get(`shutdown: ${phase}`) ?? 0) + 1);
      }
      const launch = await liveLaunchOf(workerId);
      const shutdown = await shutDown(fixture.cluster.detach(workerId), workerId, launch, turns, { twin: false });
      shutdowns.push(shutdown);
      // A request streaming at the shutdown is interrupted by the hand-back and sent again by the next launch.
      kills.push({ workerId, at: shutdown.at, until: shutdown.until });
      await fixture.cluster.start(workerId, WORKER_ENV);
      relaunchMs.push(Date.now() - shutdown.at);
      continue;
    }
    // A twin: the process freezes (its connections stay open), its id launches again below, and the old one
    // wakes up, takes turns for a moment, and shuts down.
    // A twin's launch, shut down once it woke up (see `shutDown`).
    const frozenLaunch = twin ? await liveLaunchOf(workerId) : undefined;
    const frozen = twin ? fixture.cluster.detach(workerId) : undefined;
    if (frozen) frozen.kill("SIGSTOP");
    else await fixture.cluster.kill(workerId);
    const at = Date.now();
    kills.push({ workerId, at });
    // Where the kill found the turns (their logs hold what the dead worker did), for the summary.
    for (const turn of turns) {
      const phase = phaseOf(turn, await fixture.client.readEvents(turn.ref));
      if (phase) hits.set(phase, (hits.get(phase) ?? 0) + 1);
    }
    await fixture.cluster.start(workerId, WORKER_ENV);
    relaunchMs.push(Date.now() - at);
    if (frozen) {
      // Awake, the old process goes on under a lease of its own (the new launch left its turns to it: it was
      // alive), then shuts down, which gives its lease up at once (a kill would leave its turns for a whole lease).
      frozen.kill("SIGCONT");
      await sleep(random() * 800);
      // A woken process that exited on its own is a crash of the worker: the test names it.
      expect(frozen.exitCode ?? frozen.signalCode, `${workerId} exited on its own after waking up`).toBeNull();
      // The shutdown hands the turns back from its start: another worker may send a request the old process had
      // streaming again before that process has exited, so the kill lasts from the signal to the exit.
      const shutdown = await shutDown(frozen, workerId, frozenLaunch!, turns, { twin: true });
      shutdowns.push(shutdown);
      kills.push({ workerId, at: shutdown.at, until: shutdown.until });
    }
  }
}

/**
 * A clean shutdown of a worker (SIGTERM: `shutdown()`): the launch it
 * ended, when the signal went (`at`), when its "shutting down" came
 * (`began`, a bound on when it began) and when its process exited
 * (`until`); the chaos turns pending on the launch before the signal
 * (`pending`), those of them whose ending was logged then
 * (`endedPending`), those still pending on it once it exited (`left`:
 * a turn whose row another session held at the hand-back is left for the
 * next look of a worker, which takes the launch's lease, kept expired,
 * over at once, or queues it as a turn whose launch has no lease), and
 * those still pending on it {@link LEFT_TAKEN_OVER_WITHIN_MS} later
 * (`stranded`, for the summary: a worker launched less than most of a
 * lease ago takes no lease over yet, and in chaos every worker may have
 * been launched again lately).
 */
interface Shutdown {
  workerId: string;
  launch: string;
  at: number;
  began?: number;
  until: number;
  pending: string[];
  endedPending: string[];
  left: string[];
  stranded: string[];
  /** The launch's lease row once its process exited: dropped, or kept expired (`epoch`) for a turn it left. */
  leaseRow: "dropped" | "expired" | "fresh";
  /** Its process did not exit within 60 s of the signal and was killed. */
  stuck: boolean;
  /** A twin's old process: a launch of the same worker id ran beside it (the count file cannot tell them apart). */
  twin: boolean;
}

/** The live launch of worker `workerId`: the one that beat last (a killed launch's row stays until taken over). */
async function liveLaunchOf(workerId: string): Promise<string> {
  const admin = await connectAdmin(fixture.postgres.url);
  try {
    const { rows } = await admin.query(
      `SELECT executor_id FROM turnkit_durable.workers WHERE executor_id LIKE $1 || '#%'
       ORDER BY heartbeat_at DESC LIMIT 1`,
      [workerId],
    );
    return (rows[0] as { executor_id: string }).executor_id;
  } finally {
    await admin.end();
  }
}

/** How long the test watches a turn a shutdown left (see {@link Shutdown}) for a worker to take it. */
const LEFT_TAKEN_OVER_WITHIN_MS = 5_000;

/**
 * Shuts the process of worker `workerId`'s launch `launch` down cleanly and notes what the launch ran before and
 * after (see {@link Shutdown}).
 */
async function shutDown(
  child: ChildProcess,
  workerId: string,
  launch: string,
  turns: ChaosTurn[],
  kind: { twin: boolean },
): Promise<Shutdown> {
  const admin = await connectAdmin(fixture.postgres.url);
  try {
    const pendingOnLaunch = async () => {
      const { rows: pending } = await admin.query(
        "SELECT workflow_uuid FROM dbos.workflow_status WHERE executor_id = $1 AND status = 'PENDING'",
        [launch],
      );
      const keys = new Set(pending.map((row: { workflow_uuid: string }) => row.workflow_uuid));
      return turns.filter((turn) => keys.has(turn.ref.workflowId));
    };
    const pending = await pendingOnLaunch();
    const endedPending: string[] = [];
    for (const turn of pending)
      if ((await fixture.client.readEvents(turn.ref)).some(isTerminalEvent)) endedPending.push(turn.ref.turnId);
    const shutdown: Shutdown = {
      workerId,
      launch,
      at: Date.now(),
      until: 0,
      pending: pending.map((turn) => turn.ref.turnId),
      endedPending,
      left: [],
      stranded: [],
      leaseRow: "dropped",
      stuck: false,
      twin: kind.twin,
    };
    child.stdout!.on("data", (chunk: Buffer) => {
      if (String(chunk).includes("shutting down")) shutdown.began ??= Date.now();
    });
    const exited =
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const stuck = setTimeout(() => {
      shutdown.stuck = true;
      child.kill("SIGKILL");
    }, 60_000);
    await exited;
    clearTimeout(stuck);
    shutdown.until = Date.now();
    shutdown.left = (await pendingOnLaunch()).map((turn) => turn.ref.turnId);
    const { rows: lease } = await admin.query(
      "SELECT heartbeat_at = 'epoch' AS expired FROM turnkit_durable.workers WHERE executor_id = $1",
      [launch],
    );
    if (lease.length > 0) shutdown.leaseRow = lease[0].expired ? "expired" : "fresh";
    if (shutdown.left.length > 0) {
      const deadline = Date.now() + LEFT_TAKEN_OVER_WITHIN_MS;
      while ((shutdown.stranded = (await pendingOnLaunch()).map((turn) => turn.ref.turnId)).length > 0) {
        if (Date.now() > deadline) break;
        await sleep(50);
      }
    }
    return shutdown;
  } finally {
    await admin.end();
  }
}

/**
 * The promises of each clean shutdown, on top of a kill's (checked once every turn ended): it kept to the
 * database, handed back every turn running there before its process exited, let each turn whose ending was logged
 * record its outcome there (never queued again: it would have ended on another launch), and sent no model request
 * and started no tool call once it began.
 */
async function expectShutdownsKept(shutdowns: Shutdown[], turns: ChaosTurn[], counts: CountRecord[], db: pg.Client) {
  const rejected = fixture.cluster.output.filter((chunk) => chunk.includes("shutdown rejected"));
  expect(rejected, "a shutdown gave up on the database").toEqual([]);
  const byTurnId = new Map(turns.map((turn) => [turn.ref.turnId, turn]));
  for (const shutdown of shutdowns) {
    const label = `shutdown of ${shutdown.launch} at ${shutdown.at}`;
    expect(shutdown.stuck, `${label}: its process exited`).toBe(false);
    expect(shutdown.began, `${label}: it printed that it began`).toBeDefined();
    // Handed back, or left (its row held by another session then) for the next look of a worker, which takes the
    // launch's lease (kept expired) over at once, or queues the turn as one whose launch has no lease.
    if (shutdown.left.length > 0) expect(shutdown.leaseRow, `${label}: its lease, having left turns`).not.toBe("fresh");

    for (const turnId of shutdown.endedPending) {
      const { rows } = await db.query("SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = $1", [
        byTurnId.get(turnId)!.ref.workflowId,
      ]);
      expect(rows[0], `${label}: ${turnId}, whose ending was logged, ended where it ran`).toEqual({
        status: "SUCCESS",
        executor_id: shutdown.launch,
      });
    }
    // A twin's old process shares its worker id with the launch beside it: the count file cannot tell them apart.
    if (shutdown.twin) continue;
    const startedAfter = counts.filter(
      (c) =>
        c.worker === shutdown.workerId &&
        (c.kind === "model" || c.kind === "tool-start") &&
        c.at > shutdown.began! &&
        c.at <= shutdown.until,
    );
    expect(startedAfter, `${label}: requests and calls its worker began after the shutdown began`).toEqual([]);
  }
}

/** How long after the server ended a worker's connections a statement of the worker may still fail on one. */
const CUT_NOTICE_MS = 1_000;

/** Ends every database connection of the worker processes, as the server does at a restart; resolves once they are gone. */
async function cutWorkerConnections(): Promise<void> {
  const admin = await connectAdmin(fixture.postgres.url);
  try {
    const { rows } = await admin.query(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND (application_name LIKE 'turnkit-worker %' OR application_name LIKE 'dbos %')`,
    );
    const pids = rows.map((row: { pid: number }) => row.pid);
    await admin.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [pids]);
    await waitFor("the cut connections gone", async () => {
      const left = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)", [pids]);
      return left.rows.length === 0;
    });
  } finally {
    await admin.end();
  }
}

/** Where a turn stands by its log (and what the host did to it): `undefined` once it ended or before it started. */
function phaseOf(turn: ChaosTurn, events: RuntimeEvent[]): string | undefined {
  if (events.length === 0 || events.some(isTerminalEvent)) return undefined;
  if (turn.aborted) return "abort pending";
  const steered = events.some((e) => e.type === "debug.trace" && e.payload.phase === "durable.steering");
  if (turn.steered?.answer.accepted && !steered) return "steering waiting";
  const calls = new Map<string, string>();
  for (const e of events)
    if (e.type === "stream.resp" && e.payload.chunk.kind === "tool_call")
      calls.set(e.payload.chunk.toolCallId, e.payload.chunk.status);
  const asked = events.filter((e) => e.type === "action.required").length;
  const answered = events.filter((e) => e.type === "debug.trace" && e.payload.phase === "durable.approval").length;
  if (asked > answered) return "approval wait";
  if ([...calls.values()].some((status) => status === "started")) return "tool";
  const last = events.at(-1)!;
  if (last.type === "stream.resp" && last.payload.chunk.kind === "text") return "stream";
  return "between steps";
}

/**
 * A kill of a worker process: a `SIGKILL` at `at`, or a twin's shutdown,
 * which hands the turns back from `at` (the signal) on and ends `until`
 * (the process exited).
 */
interface Kill {
  workerId: string;
  at: number;
  until?: number;
}

/**
 * Attempts of one thing (a request at one place of a turn, one call) in time
 * order: each attempt after the first must follow a kill of the worker that
 * made the one before (that attempt was interrupted, so it never finished):
 * a kill that lasted until that attempt or later, and began before the next.
 */
function expectRetriesOnlyAfterKills(label: string, attempts: CountRecord[], kills: Kill[]): void {
  const sorted = [...attempts].sort((a, b) => a.at - b.at);
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1]!;
    const killed = kills.some(
      (k) => k.workerId === before.worker && (k.until ?? k.at) >= before.at && k.at <= sorted[i]!.at,
    );
    const near = kills.filter((k) => k.at <= sorted[i]!.at + 5_000 && (k.until ?? k.at) >= before.at - 5_000);
    expect(
      killed,
      `${label}: attempt ${i + 1} (${sorted[i]!.worker}, at ${sorted[i]!.at}) without a kill of ${before.worker} after attempt ${i} (at ${before.at}); kills near: ${JSON.stringify(near)}`,
    ).toBe(true);
  }
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/** The last events of a log, one line each (seq, type, and what tells them apart), for a failing turn's message. */
function logTail(events: RuntimeEvent[]): string {
  return events
    .slice(-25)
    .map((e) => {
      const payload = e.payload as { phase?: string; status?: string; message?: string; chunk?: { kind?: string } };
      const what = payload.phase ?? payload.status ?? payload.chunk?.kind ?? "";
      return `${e.seq} ${e.type} ${what} ${payload.message ?? ""}${e.origin ? " (sub-agent)" : ""}`.slice(0, 240);
    })
    .join("\n");
}

/** A message in a few characters: its role and its call id or first text. */
function brief(m: unknown): string {
  const message = m as AgentMessage;
  if (message.role === "toolResult") return `toolResult:${message.toolCallId}`;
  if (message.role === "assistant")
    return `assistant(${message.stopReason}):${message.content.map((b) => (b.type === "toolCall" ? b.id : b.type)).join(",")}`;
  return `${message.role}:${userTexts([message]).join("").slice(0, 30)}`;
}

describe("chaos", () => {
  it(`${KILLS} random kills and shutdowns while ${SESSIONS} sessions run turns: every promise holds`, async () => {
    console.log(`chaos seed ${SEED} (TURNKIT_DURABLE_CHAOS_SEED=${SEED} repeats this run's choices)`);
    const turns: ChaosTurn[] = [];
    const outcomes = new Map<string, TurnOutcome>();
    const kills: Kill[] = [];
    const shutdowns: Shutdown[] = [];
    const relaunchMs: number[] = [];
    const hits = new Map<string, number>();
    // The outcome's write slowed (after the ending is logged, before the workflow records its end), so that a
    // shutdown often finds a turn there.
    if (SHUTDOWN_SHARE > 0) {
      const admin = await connectAdmin(fixture.postgres.url);
      try {
        await slowOutcomeWrites(admin, 0.3);
      } finally {
        await admin.end();
      }
    }
    const startedAt = Date.now();
    let killsDoneMs = 0;
    /** Each finished turn's session history as it left it; each session's history before its turns since the last rewind. */
    const leftBy = new Map<string, AgentMessage[]>();
    const baseOf = new Map<string, { base: AgentMessage[]; turns: ChaosTurn[] }>();
    const cuts = { forks: 0, rewinds: 0 };
    // Each session runs its turns one after another until the kills are over (at least TURNS_PER_SESSION).
    const runSession = async (s: number) => {
      const sessionId = `chaos-${s}`;
      const inHistory: string[] = [];
      baseOf.set(sessionId, { base: [], turns: [] });
      for (let t = 0; t < TURNS_PER_SESSION || killsDoneMs === 0; t++) {
        // Between turns, a fork at a finished turn or a rewind to one: each holds the history that turn left.
        const cut = seededRandom(SEED + 104_729 * (s * 1000 + t + 1));
        const at = inHistory[Math.floor(cut() * inHistory.length)];
        if (at !== undefined && cut() < 0.3) {
          const forkId = `${sessionId}-fork-${t}`;
          await fixture.client.fork({ sessionId, turnId: at }, forkId);
          expect((await fixture.client.readHistory(forkId)).map(brief), `${forkId} at ${at}`).toEqual(
            leftBy.get(at)!.map(brief),
          );
          cuts.forks++;
        } else if (at !== undefined && cut() < 0.3) {
          await fixture.client.rewind({ sessionId, turnId: at });
          expect((await fixture.client.readHistory(sessionId)).map(brief), `${sessionId} rewound to ${at}`).toEqual(
            leftBy.get(at)!.map(brief),
          );
          inHistory.splice(inHistory.indexOf(at) + 1);
          baseOf.set(sessionId, { base: leftBy.get(at)!, turns: [] });
          cuts.rewinds++;
        }
        // Every turn draws from its own generator: the choices do not depend on timing.
        const random = seededRandom(SEED + 7919 * (s * 1000 + t + 1));
        const plan = PLANS[Math.floor(random() * PLANS.length)]!;
        const ref = await fixture.client.start({
          sessionId,
          turnId: `c${s}-${t}`,
          userMessage: { text: `please do ${plan}` },
          metadata: { scenario: "chaos", plan, toolMs: Math.round(300 + random() * 900), delayMs: 15 },
        });
        const turn: ChaosTurn = { ref, plan };
        turns.push(turn);
        baseOf.get(sessionId)!.turns.push(turn);
        const host = Promise.all([
          plan === "approval" || plan === "sub-agent" || plan === "sub-agents"
            ? driveApproval(turn, random)
            : undefined,
          driveHost(turn, random),
        ]);
        // Every turn ends.
        outcomes.set(
          ref.turnId,
          await withDeadline(fixture.client.outcome(ref), TURN_DEADLINE_MS, `turn ${ref.turnId}`),
        );
        await host;
        leftBy.set(ref.turnId, (await fixture.client.readHistory(sessionId)) as AgentMessage[]);
        inHistory.push(ref.turnId);
      }
    };
    await Promise.all([
      killer(seededRandom(SEED), turns, kills, shutdowns, relaunchMs, hits).then(
        () => (killsDoneMs = Date.now() - startedAt),
      ),
      ...Array.from({ length: SESSIONS }, (_, s) => runSession(s)),
    ]);
    const endedMs = Date.now() - startedAt;

    // No worker process ended on its own (a twin's is checked when it wakes up; any other's only here).
    expect(fixture.cluster.crashes, fixture.cluster.output.join("").slice(-4000)).toEqual([]);
    const counts = fixture.cluster.counts();
    const db = new pg.Client({ connectionString: fixture.postgres.url });
    await db.connect();
    try {
      for (const turn of turns) {
        const events = await fixture.client.readEvents(turn.ref);
        // No gap, no repeat, one ending and it is last; the outcome is the one the log ends with.
        assertLogInvariants(events);
        // The whole log, superseded events included, is a valid stream; a sub-agent's events one of their own.
        assertRuntimeEventSequence(events);
        const terminal = events.at(-1) as RuntimeEvent<"session.status">;
        const outcome = outcomes.get(turn.ref.turnId)!;
        expect(terminal.payload.status).toBe(outcome.kind);
        // A kill never fails a turn: only an abort ends one otherwise than completed.
        if (turn.aborted !== true)
          expect(
            outcome.kind,
            `${turn.ref.turnId} (${turn.plan}): ${JSON.stringify(outcome)}\nlast events:\n${logTail(events)}`,
          ).toBe("completed");
      }

      const mine = (c: CountRecord) => c.sessionId.startsWith("chaos-");
      // No finished model request sent again: a request at the same place of a turn again only after a kill.
      const requests = groupBy(
        counts.filter((c) => mine(c) && c.kind === "model"),
        (c) =>
          `${c.turnId}@${c.detail === "child" || c.detail?.startsWith("scout:") ? `${c.detail}:` : ""}${c.position}`,
      );
      for (const [label, attempts] of requests) expectRetriesOnlyAfterKills(`request ${label}`, attempts, kills);
      // No never call run twice; a safe call again only after a kill, with the same idempotency key.
      const starts = groupBy(
        counts.filter((c) => mine(c) && c.kind === "tool-start"),
        (c) => `${c.turnId}/${c.detail}`,
      );
      const planOf = new Map(turns.map((t) => [t.ref.turnId, t.plan]));
      for (const [label, attempts] of starts) {
        if (planOf.get(attempts[0]!.turnId) !== "safe") expect(attempts, `never call ${label}`).toHaveLength(1);
        else {
          expectRetriesOnlyAfterKills(`safe call ${label}`, attempts, kills);
          expect(new Set(attempts.map((a) => a.key)).size).toBe(1);
        }
      }

      await expectShutdownsKept(shutdowns, turns, counts, db);

      for (let s = 0; s < SESSIONS; s++) {
        const sessionId = `chaos-${s}`;
        const { rows } = await db.query(
          "SELECT message FROM turnkit_durable.session_messages WHERE session_id = $1 ORDER BY position",
          [sessionId],
        );
        const history = rows.map((row: { message: AgentMessage }) => row.message);
        // No unanswered call in the stored history, which holds exactly what the logs announced (after the
        // history the last rewind went back to).
        assertToolCallsAnswered(history);
        const { base, turns: sinceRewind } = baseOf.get(sessionId)!;
        const announced: unknown[] = [...base];
        const announcedBy = new Map<string, unknown[]>();
        for (const turn of turns.filter((t) => t.ref.sessionId === sessionId)) {
          const own = (await fixture.client.readEvents(turn.ref)).flatMap((e) =>
            e.type === "message.persisted" && !e.origin ? e.payload.messages : [],
          );
          announcedBy.set(turn.ref.turnId, own);
          if (sinceRewind.includes(turn)) announced.push(...own);
        }
        // Roles and call ids first (a readable failure), then every field.
        expect(history.map(brief), sessionId).toEqual(announced.map(brief));
        expect(history).toEqual(announced);
        // Each accepted steering message reached the history (as the turn announced it) or was handed back, once; a
        // refused one neither.
        for (const turn of turns.filter((t) => t.ref.sessionId === sessionId && t.steered)) {
          const { text, answer } = turn.steered!;
          const delivered = userTexts(announcedBy.get(turn.ref.turnId)!).filter((t) => t === text).length;
          const handedBack = userTexts(outcomes.get(turn.ref.turnId)!.undeliveredMessages ?? []).filter(
            (t) => t === text,
          ).length;
          expect({ delivered: delivered + handedBack, answer }).toEqual({
            delivered: answer.accepted ? 1 : 0,
            answer,
          });
        }
      }
    } finally {
      await db.end();
    }

    const summary = {
      seed: SEED,
      kills: kills.length,
      turns: turns.length,
      outcomes: [...groupBy([...outcomes.values()], (o) => o.kind)].map(([k, v]) => `${k} ${v.length}`).join(", "),
      requests: counts.filter((c) => c.kind === "model" && c.sessionId.startsWith("chaos-")).length,
      toolStarts: counts.filter((c) => c.kind === "tool-start" && c.sessionId.startsWith("chaos-")).length,
      forks: cuts.forks,
      rewinds: cuts.rewinds,
      steered: turns
        .filter((t) => t.steered)
        .map((t) => (t.steered!.answer.accepted ? "accepted" : t.steered!.answer.reason)),
      approvals: turns.filter((t) => t.approval).map((t) => t.approval),
      killsHit: Object.fromEntries(hits),
      shutdowns: shutdowns.map((each) => ({
        twin: each.twin,
        handedBack: each.pending.length - each.endedPending.length,
        endedPending: each.endedPending.length,
        left: each.left.length,
        stranded: each.stranded.length,
        leaseRow: each.leaseRow,
        ms: each.until - each.at,
      })),
      relaunchMs,
      killsDoneMs,
      endedMs,
    };
    console.log(`chaos summary ${JSON.stringify(summary)}`);
  }, 600_000);
});
