/*
 * The README's curl session, run with fetch: start a turn, follow it as
 * Server-Sent Events, kill the worker running it with SIGKILL mid-stream,
 * reconnect with Last-Event-ID and watch the other worker finish it; then
 * an approval, a steering message and an abort over HTTP; then a session's
 * turns and history, a fork and a rewind; then an MCP server's question
 * (elicitation) in a durable turn, answered after the worker running it
 * was killed and restarted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DurableServer, startDurableServer } from "../src/durable-server.js";
import { testWorkerCommand, testWorkerEnv } from "./support/worker-bundle.js";

interface SseEvent {
  id: number;
  event: string;
  data: any;
}

let server: DurableServer;

beforeAll(async () => {
  server = await startDurableServer({
    workerCommand: testWorkerCommand(),
    port: 0,
    leaseMs: 1500,
    workerEnv: { DEMO_DELAY_MS: "40", ...testWorkerEnv() },
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

/** Reads the SSE stream of a turn until `until` says stop (or the stream ends); the connection is then dropped. */
async function readEvents(
  path: string,
  until: (event: SseEvent, all: SseEvent[]) => boolean,
  lastEventId?: number,
): Promise<SseEvent[]> {
  const stop = new AbortController();
  const res = await fetch(`${server.url}${path}`, {
    headers: { ...auth(), ...(lastEventId ? { "Last-Event-ID": String(lastEventId) } : {}) },
    signal: stop.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .split("\n")
            .find((line) => line.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim();
        const event = {
          id: Number(field("id")),
          event: field("event") ?? "",
          data: JSON.parse(field("data") ?? "null"),
        };
        events.push(event);
        if (until(event, events)) return events;
      }
    }
  } finally {
    stop.abort();
  }
}

const auth = () => ({ authorization: `Bearer ${server.tokens.alice}` });
const get = (path: string) => fetch(`${server.url}${path}`, { headers: auth() });
const post = (path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const isEnd = (e: SseEvent) => e.event === "session.status" && e.data.status !== "running";
const text = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === "stream.resp" && e.data.chunk.kind === "text")
    .map((e) => e.data.chunk.delta)
    .join("");

describe("the durable server's curl session", () => {
  it("a worker killed mid-turn: the client reconnects with Last-Event-ID and the other worker finishes the turn", async () => {
    expect((await post("/sessions/demo/turns", { turnId: "t1", text: "take a note" })).status).toBe(202);
    const first = await readEvents(
      "/sessions/demo/turns/t1/events",
      (_e, all) => all.filter((e) => e.event === "stream.resp").length >= 5,
    );
    const status = await (await get("/sessions/demo/turns/t1")).json();
    expect(status).toMatchObject({
      state: "running",
      workerId: expect.stringMatching(/^worker-/),
      pid: expect.any(Number),
    });
    process.kill(status.pid, "SIGKILL");
    const rest = await readEvents("/sessions/demo/turns/t1/events", isEnd, first.at(-1)!.id);
    const all = [...first, ...rest];
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i + 1));
    expect(all.at(-1)).toMatchObject({ event: "session.status", data: { status: "completed" } });
    expect(all.some((e) => e.event === "debug.trace" && e.data.phase === "durable.resume")).toBe(true);
    expect(text(rest)).toContain("Done: note saved");
    // The terminal event is logged just before the workflow records its end.
    await expect
      .poll(async () => (await get("/sessions/demo/turns/t1")).json(), { timeout: 10_000 })
      .toEqual({ state: "finished" });
    expect(server.workers().map((w) => w.workerId)).not.toContain(status.workerId);
  }, 90_000);

  it("an approval answered over HTTP", async () => {
    await post("/sessions/demo/turns", { turnId: "t2", text: "please deploy" });
    const asked = await readEvents("/sessions/demo/turns/t2/events", (e) => e.event === "action.required");
    const { requestId } = asked.at(-1)!.data;
    expect((await post(`/sessions/demo/turns/t2/approvals/${requestId}`, { approved: true })).status).toBe(204);
    const rest = await readEvents("/sessions/demo/turns/t2/events", isEnd, asked.at(-1)!.id);
    expect(text(rest)).toMatch(/^Done: web deployed/);
    expect(rest.at(-1)!.data).toMatchObject({ status: "completed" });
  }, 60_000);

  it("steering and abort over HTTP", async () => {
    // Steered while it waits for an approval, so the steer lands before the next step boundary however slow the
    // machine (a note's turn leaves about a second between its first word and its last boundary).
    await post("/sessions/demo/turns", { turnId: "t3", text: "please deploy" });
    const asked = await readEvents("/sessions/demo/turns/t3/events", (e) => e.event === "action.required");
    expect(await (await post("/sessions/demo/turns/t3/steer", { text: "also tag it" })).json()).toEqual({
      accepted: true,
    });
    const { requestId } = asked.at(-1)!.data;
    expect((await post(`/sessions/demo/turns/t3/approvals/${requestId}`, { approved: true })).status).toBe(204);
    const steered = await readEvents("/sessions/demo/turns/t3/events", isEnd, asked.at(-1)!.id);
    // Taken at the step boundary after the call: the model answers it.
    expect(text(steered)).toMatch(/^Noted: also tag it/);
    expect(steered.at(-1)!.data).toMatchObject({ status: "completed" });

    // Aborted while it waits for an approval, likewise (a note's turn ends about two seconds after it starts).
    await post("/sessions/demo/turns", { turnId: "t4", text: "please deploy" });
    await readEvents("/sessions/demo/turns/t4/events", (e) => e.event === "action.required");
    expect((await post("/sessions/demo/turns/t4/abort")).status).toBe(202);
    const aborted = await readEvents("/sessions/demo/turns/t4/events", isEnd);
    expect(aborted.at(-1)!.data).toMatchObject({ status: "aborted" });
    expect((await post("/sessions/demo/turns/nope/abort")).status).toBe(404);

    // A resume point that is no seq is refused before the stream starts, naming where it came from.
    for (const [headers, query, field] of [
      [{ "Last-Event-ID": "-1" }, "", "Last-Event-ID"],
      [{ "Last-Event-ID": "abc" }, "", "Last-Event-ID"],
      [{ "Last-Event-ID": "99999999999" }, "", "Last-Event-ID"],
      [{}, "?after=1.5", "after"],
    ] as const) {
      const res = await fetch(`${server.url}/sessions/demo/turns/t4/events${query}`, {
        headers: { ...auth(), ...headers },
      });
      expect([res.status, await res.json()]).toEqual([
        400,
        expect.objectContaining({ code: "invalid_request", field }),
      ]);
    }
  }, 60_000);

  it("a session's turns and history, a fork and a rewind over HTTP; a running turn and bad input get 404 and 409", async () => {
    const put = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "PUT",
        headers: { "content-type": "application/json", ...auth() },
        body: JSON.stringify(body),
      });
    // Turns that ask for an approval: quick once answered, and running for as long as they wait.
    const ask = async (turnId: string) => {
      await post("/sessions/hist/turns", { turnId, text: "please deploy" });
      const asked = await readEvents(`/sessions/hist/turns/${turnId}/events`, (e) => e.event === "action.required");
      return asked.at(-1)!.data.requestId as string;
    };
    const deny = async (turnId: string, requestId: string) => {
      expect((await post(`/sessions/hist/turns/${turnId}/approvals/${requestId}`, { approved: false })).status).toBe(
        204,
      );
      await readEvents(`/sessions/hist/turns/${turnId}/events`, isEnd);
    };
    for (const turnId of ["h1", "h2"]) await deny(turnId, await ask(turnId));
    await expect
      .poll(async () => (await (await get("/sessions/hist/turns")).json()).map((t: any) => t.state), {
        timeout: 10_000,
      })
      .toEqual(["finished", "finished"]);
    const before = (await (await get("/sessions/hist/history")).json()).messages;
    expect(before.filter((m: any) => m.role === "user")).toHaveLength(2);
    expect((await put("/sessions/hist/turns/h1/label", { label: "first note" })).status).toBe(204);

    const fork = await post("/sessions/hist/fork", { atTurnId: "h1", sessionId: "hist-fork" });
    expect([fork.status, await fork.json()]).toEqual([201, { sessionId: "hist-fork" }]);
    const forked = (await (await get("/sessions/hist-fork/history")).json()).messages;
    expect(forked).toEqual(before.slice(0, forked.length));
    expect(forked.filter((m: any) => m.role === "user")).toHaveLength(1);
    expect((await get("/sessions")).headers.get("x-next-after")).toBeNull();
    expect((await (await get("/sessions?limit=1")).json()).map((s: any) => s.sessionId)).toEqual(["hist-fork"]);

    // A turn running in the session: the rewind waits for it (409), the fork target exists (409).
    const waiting = await ask("h3");
    const busy = await post("/sessions/hist/rewind", { toTurnId: "h1" });
    expect([busy.status, (await busy.json()).code]).toEqual([409, "session_busy"]);
    const taken = await post("/sessions/hist/fork", { atTurnId: "h1", sessionId: "hist-fork" });
    expect([taken.status, (await taken.json()).code]).toEqual([409, "session_exists"]);
    const unknown = await post("/sessions/hist/fork", { atTurnId: "nope" });
    expect([unknown.status, (await unknown.json()).code]).toEqual([404, "unknown_turn"]);
    await deny("h3", waiting);
    await expect
      .poll(async () => (await post("/sessions/hist/rewind", { toTurnId: "h1" })).status, { timeout: 10_000 })
      .toBe(204);
    expect((await (await get("/sessions/hist/history")).json()).messages).toEqual(forked);
    const turns = await (await get("/sessions/hist/turns")).json();
    expect(turns.map((t: any) => [t.turnId, t.label, t.inHistory])).toEqual([
      ["h1", "first note", true],
      ["h2", undefined, false],
      ["h3", undefined, false],
    ]);
    expect((await get("/sessions/nobody-has-this/history")).status).toBe(404);
  }, 90_000);

  it("an MCP server's question: its worker killed while it waits, the call runs again after the restart and the answer reaches the new server", async () => {
    await post("/sessions/rel/turns", { turnId: "r1", text: "please release" });
    const asked = await readEvents("/sessions/rel/turns/r1/events", (e) => e.event === "action.required");
    const question = asked.at(-1)!.data;
    expect(question).toMatchObject({
      kind: "elicitation",
      serverName: "release-desk",
      message: "Which branch should I release?",
      requestId: expect.stringMatching(/^elicitation:.+:1$/),
    });
    const status = await (await get("/sessions/rel/turns/r1")).json();
    process.kill(status.pid, "SIGKILL");
    await expect
      .poll(() => server.workers().map((w) => w.workerId), { timeout: 10_000 })
      .not.toContain(status.workerId);
    // Restarted with the same id, the worker recovers the turn at once; the call (`release` is idempotent:
    // `replay: "safe"`) runs again with the worker's new MCP server, which asks again under the same request id.
    await server.restartWorker(status.workerId);
    const answer = { action: "accept", content: { branch: "main" } };
    expect((await post(`/sessions/rel/turns/r1/approvals/${question.requestId}`, answer)).status).toBe(204);
    const all = await readEvents("/sessions/rel/turns/r1/events", isEnd);
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i + 1));
    expect(all.at(-1)).toMatchObject({ event: "session.status", data: { status: "completed" } });
    // Asked once in the log; the server that got the answer says so in the call's result.
    expect(all.filter((e) => e.event === "action.required")).toHaveLength(1);
    expect(text(all)).toMatch(/Done: releasing main \(server pid \d+\)/);
    const closing = all.filter((e) => e.event === "debug.trace" && e.data.phase === "action.request");
    expect(closing.map((e) => e.data.attrs)).toEqual([
      { requestId: question.requestId, kind: "elicitation", outcome: "answered" },
    ]);
  }, 90_000);
});
