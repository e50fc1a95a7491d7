/*
 * The chat API of the server: login (bearer tokens), sessions that belong
 * to their user (another user's is 404 on every route, streams included),
 * body limits enforced before bodies are read, and durable turns served as
 * the AI SDK's UI message stream, read back by the AI SDK's own parser and
 * reader: an approval answered over HTTP, a resume after a seq, a history
 * rebuilt for a page load.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DurableServer, startDurableServer } from "../src/durable-server.js";
import { testWorkerCommand } from "./support/worker-bundle.js";
import { readUIStream, textOf } from "./support/ui-stream-reader.js";
import { AbstractChat, type ChatState, type ChatStatus, DefaultChatTransport } from "ai";
import { TURN_ID_HEADER, type TurnkitUIMessage } from "@turnkit/ui-stream";

/** The AI SDK chat core's state kept in memory: what `useChat` keeps in React. */
class MemoryChatState implements ChatState<TurnkitUIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: TurnkitUIMessage[] = [];
  pushMessage = (message: TurnkitUIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: TurnkitUIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's chat core (`AbstractChat`, what `useChat` wraps) on that state: a page without React. */
class HeadlessChat extends AbstractChat<TurnkitUIMessage> {}

let server: DurableServer;

beforeAll(async () => {
  server = await startDurableServer({
    workerCommand: testWorkerCommand(),
    port: 0,
    workers: 1,
    maxBodyBytes: 4096,
    workerEnv: { DEMO_DELAY_MS: "10" },
    // Short, so that every stream waiting on an approval below carries comments the AI SDK must skip.
    keepAliveMs: 25,
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

type Who = "alice" | "bob" | "nobody";
const headers = (who: Who, extra: Record<string, string> = {}) => ({
  ...(who === "nobody" ? {} : { authorization: `Bearer ${server.tokens[who]}` }),
  ...extra,
});
const call = (who: Who, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: headers(who, { "content-type": "application/json", ...extra }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const chat = (who: Who, id: string, text: string) =>
  call(who, "POST", "/chat", {
    id,
    trigger: "submit-message",
    messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }],
  });

/** Every API route of a session (method, path, body), streams included. */
function sessionRoutes(session: string, turn: string): [string, string, unknown?][] {
  const t = `/sessions/${session}/turns/${turn}`;
  return [
    ["GET", t],
    ["GET", `${t}/events`],
    ["POST", `${t}/steer`, { text: "hi" }],
    ["POST", `${t}/approvals/approval:call_1`, { approved: true }],
    ["POST", `${t}/abort`],
    ["POST", `/sessions/${session}/turns`, { text: "take over" }],
    ["GET", `/sessions/${session}/messages`],
    ["GET", `/chat/${session}/stream`],
    ["GET", `/chat/${session}/stream?turnId=${turn}`],
  ];
}

describe("login, ownership and limits", () => {
  it("every API route refuses a request without a valid token (401), before anything else", async () => {
    const routes: [string, string, unknown?][] = [
      ["GET", "/sessions"],
      ["GET", "/workers"],
      ["POST", "/chat", { id: "x", messages: [] }],
      ...sessionRoutes("any", "t1"),
    ];
    for (const [method, path, body] of routes) {
      for (const extra of [
        {} as Record<string, string>,
        { authorization: "Bearer not-a-token" },
        { authorization: `Basic ${server.tokens.alice}` },
      ]) {
        const res = await call("nobody", method, path, body, extra);
        expect([method, path, res.status], JSON.stringify(extra)).toEqual([method, path, 401]);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
        expect(await res.json()).toMatchObject({ code: "unauthenticated" });
      }
    }
  });

  it("a session is its owner's: another user gets 404 on every route, as for a session that does not exist", async () => {
    const started = await call("alice", "POST", "/sessions/alice-ops/turns", { turnId: "t1", text: "please deploy" });
    expect(started.status).toBe(202);
    for (const [index, [method, path, body]] of sessionRoutes("alice-ops", "t1").entries()) {
      const res = await call("bob", method, path, body);
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(await res.json()).toEqual({ code: "not_found", message: "no such session" });
      // Starting a turn in a session nobody has creates it; every other route answers a missing session alike.
      if (method === "POST" && path.endsWith("/turns")) continue;
      const none = await call("bob", method, path.replace("alice-ops", `ghost-${index}`), body);
      expect([method, path, none.status]).toEqual([method, path, 404]);
      expect(await none.json()).toEqual({ code: "not_found", message: "no such session" });
    }
    expect((await chat("bob", "alice-ops", "let me in")).status).toBe(404);
    expect(await (await call("bob", "GET", "/sessions")).json()).toEqual([]);
    // Alice still reaches all of it; her session was not changed by Bob.
    expect((await call("alice", "GET", "/sessions/alice-ops/turns/t1")).status).toBe(200);
    expect((await call("alice", "GET", "/sessions")).status).toBe(200);
    expect((await call("alice", "GET", "/sessions/alice-ops/messages").then((r) => r.json())).messages).toHaveLength(1);
    await call("alice", "POST", "/sessions/alice-ops/turns/t1/abort");
  });

  it("an oversized body is refused before it is read: 413 for a user, 401 for nobody, while the client is still sending", async () => {
    const { pathname, port } = new URL(`${server.url}/chat`);
    const partialUpload = (authorization?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({
          host: "127.0.0.1",
          port,
          path: pathname,
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": String(50 * 1024 * 1024),
            ...(authorization && { authorization }),
          },
        });
        req.on("response", (res) => {
          resolve(res.statusCode!);
          res.resume();
          req.destroy();
        });
        req.on("error", reject);
        // 64 KiB of the announced 50 MiB, then nothing: a server that reads the body first never answers.
        req.write(Buffer.alloc(64 * 1024, "a"));
      });
    expect(await partialUpload(`Bearer ${server.tokens.alice}`)).toBe(413);
    expect(await partialUpload()).toBe(401);
    // Without a length (chunked), reading stops at the limit.
    const chunked = await fetch(`${server.url}/chat`, {
      method: "POST",
      headers: headers("alice", { "content-type": "application/json" }),
      body: new Blob(["x".repeat(10_000)]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ code: "body_too_large" });
  });
});

describe("malformed chat requests", () => {
  it("a chat body that is not JSON, or has a missing or mistyped field, is a 400 naming the field, and starts nothing", async () => {
    const post = (body: string) =>
      fetch(`${server.url}/chat`, {
        method: "POST",
        headers: headers("alice", { "content-type": "application/json" }),
        body,
      });
    const ask = (parts: unknown, more: Record<string, unknown> = {}) =>
      JSON.stringify({
        id: "malformed",
        trigger: "submit-message",
        messages: [{ id: "u1", role: "user", parts }],
        ...more,
      });
    const hi = [{ type: "text", text: "hi" }];
    const cases: [body: string, code: string, field: string | undefined][] = [
      ["{bad", "invalid_json", undefined],
      ["", "invalid_json", undefined],
      ["[1]", "invalid_request", undefined],
      [ask(hi, { id: 5 }), "invalid_request", "id"],
      [ask(hi, { id: "" }), "invalid_request", "id"],
      [ask(hi, { id: "a\u0000b" }), "invalid_request", "id"],
      [ask(hi, { trigger: "go" }), "invalid_request", "trigger"],
      [ask(hi, { messages: "hi" }), "invalid_request", "messages"],
      [ask(hi, { messages: [] }), "invalid_request", "messages"],
      [ask(hi, { messages: [{ role: "assistant", parts: hi }] }), "invalid_request", "messages[0].role"],
      [ask("hi"), "invalid_request", "messages[0].parts"],
      [ask([null]), "invalid_request", "messages[0].parts[0]"],
      [ask([{ type: "text" }]), "invalid_request", "messages[0].parts[0].text"],
      [ask([{ type: "text", text: 42 }]), "invalid_request", "messages[0].parts[0].text"],
      [ask([{ type: "text", text: "h\u0000i" }]), "invalid_request", "messages[0].parts[0].text"],
      [ask([{ type: "file", url: "x" }]), "invalid_request", "messages[0].parts"],
    ];
    for (const [body, code, field] of cases) {
      const res = await post(body);
      const answer = await res.json();
      expect([body, res.status, answer.code, answer.field]).toEqual([body, 400, code, field]);
      if (field) expect(answer.message).toContain(field);
    }
    // Nothing was started: the chat does not exist.
    expect((await call("alice", "GET", "/sessions/malformed/messages")).status).toBe(404);
  });
});

describe("malformed stream requests", () => {
  it("a chat id no session can have (with U+0000) is a 404 like any unknown chat, not a 500", async () => {
    for (const path of ["/chat/a%00b/stream", "/chat/a%00b/stream?turnId=t1", "/sessions/a%00b/messages"]) {
      const res = await call("alice", "GET", path);
      expect([path, res.status, await res.json()]).toEqual([
        path,
        404,
        { code: "not_found", message: "no such session" },
      ]);
    }
  });

  it("a Last-Event-ID that is not a seq is a 400 naming it, not a replay from the start that shows the answer twice", async () => {
    const { message } = await readUIStream((await chat("alice", "bad-resume", "take a note")).body!);
    const stream = (lastEventId: string) =>
      call("alice", "GET", `/chat/bad-resume/stream?turnId=${message.id}`, undefined, { "last-event-id": lastEventId });
    for (const bad of ["abc", "12abc", "-1", "1.5", "", "99999999999"]) {
      const res = await stream(bad);
      expect([bad, res.status, await res.json()]).toEqual([
        bad,
        400,
        expect.objectContaining({ code: "invalid_request", field: "Last-Event-ID" }),
      ]);
    }
    // A seq resumes after it: the turn's last event is all that follows the one before it.
    const events = await (await call("alice", "GET", `/chat/bad-resume/stream?turnId=${message.id}`)).text();
    const lastSeq = Math.max(...[...events.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])));
    const rest = await (await stream(String(lastSeq - 1))).text();
    expect([...rest.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([lastSeq]);
  }, 60_000);
});

describe("durable turns as the AI SDK's UI message stream", () => {
  it("a chat turn streams text, a tool call with its output, usage; the history a page loads has it too", async () => {
    const res = await chat("alice", "notes", "take a note");
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const { message, chunks } = await readUIStream(res.body!);
    expect(textOf(message)).toMatch(/^word1 word2 .* word15 Done: note saved \(11 characters\)\. wrap1/);
    expect(message.parts.find((p) => p.type === "tool-write_note")).toMatchObject({
      state: "output-available",
      input: { note: "take a note" },
    });
    expect(message.metadata).toMatchObject({ sessionId: "notes", status: "completed", steps: 2, usage: { cost: {} } });
    // The turn is named before its first chunk too, for a client resuming a queued turn's silent stream.
    expect(res.headers.get("x-turnkit-turn-id")).toBe(message.metadata!.turnId);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    const history = await (await call("alice", "GET", "/sessions/notes/messages")).json();
    expect(history.resumeTurnId).toBeUndefined();
    expect(history.messages.map((m: any) => m.role)).toEqual(["user", "assistant"]);
    expect(history.messages[1]).toEqual(message);
    // The turn finished: a page that asks for "the running turn" is told there is none.
    expect((await call("alice", "GET", "/chat/notes/stream")).status).toBe(204);
  }, 60_000);

  it("an approval is the AI SDK's approval part; answered over HTTP, the same stream goes on to the output", async () => {
    const res = await chat("alice", "ops", "please deploy");
    let approvalId = "";
    let turnId = "";
    const { message } = await readUIStream(res.body!, (m, chunk) => {
      if (chunk.type === "tool-approval-request") {
        approvalId = chunk.approvalId;
        turnId = m.metadata!.turnId;
        void call("alice", "POST", `/sessions/ops/turns/${turnId}/approvals/${approvalId}`, { approved: true });
      }
      return false;
    });
    expect(approvalId).toBe("approval:call_1");
    expect(message.parts.find((p) => p.type === "tool-deploy")).toMatchObject({
      state: "output-available",
      approval: { id: "approval:call_1" },
      output: { content: [{ type: "text", text: "web deployed (call_1)" }] },
    });
    expect(textOf(message)).toMatch(/Done: web deployed/);
  }, 60_000);

  it("while an approval waits, the chat stream and the event stream send keep-alive comments; the AI SDK reads through them", async () => {
    const res = await chat("alice", "waits", "please deploy");
    const turnId = res.headers.get(TURN_ID_HEADER)!;
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let raw = "";
    while (!raw.includes('"type":"tool-approval-request"')) raw += (await reader.read()).value;
    const asked = raw.length;
    while (!raw.slice(asked).includes(": keep-alive\n\n")) raw += (await reader.read()).value;
    const events = await call("alice", "GET", `/sessions/waits/turns/${turnId}/events`);
    const eventReader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let eventsRaw = "";
    while (!eventsRaw.includes("event: action.required")) eventsRaw += (await eventReader.read()).value;
    const eventsAsked = eventsRaw.length;
    while (!eventsRaw.slice(eventsAsked).includes(": keep-alive\n\n")) eventsRaw += (await eventReader.read()).value;
    await eventReader.cancel();

    await call("alice", "POST", `/sessions/waits/turns/${turnId}/approvals/approval:call_1`, { approved: true });
    for (let next = await reader.read(); !next.done; next = await reader.read()) raw += next.value;
    const { message } = await readUIStream(new Response(raw).body!);
    expect(message.parts.find((p) => p.type === "tool-deploy")).toMatchObject({
      state: "output-available",
      output: { content: [{ type: "text", text: "web deployed (call_1)" }] },
    });
    expect(textOf(message)).toMatch(/Done: web deployed/);
  }, 60_000);

  it("a page loading a session while a turn runs and another waits behind it resumes the running one, after its question", async () => {
    for (const [turnId, text] of [
      ["t1", "please deploy"],
      ["t2", "please deploy again"],
    ])
      expect((await call("alice", "POST", "/sessions/queued/turns", { turnId, text })).status).toBe(202);
    const history = await (await call("alice", "GET", "/sessions/queued/messages")).json();
    // The running turn's answer goes after its own question, so the queued question is not in the messages yet.
    expect(history).toEqual({
      messages: [{ id: "t1:user", role: "user", parts: [{ type: "text", text: "please deploy" }] }],
      resumeTurnId: "t1",
      queuedTurns: [{ turnId: "t2", text: "please deploy again" }],
    });
    // A page resuming "the running turn" (useChat's resume, without a turn id) gets the running one too.
    const resumed = await call("alice", "GET", "/chat/queued/stream");
    const reader = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let head = "";
    while (!head.includes('"type":"start"')) head += (await reader.read()).value;
    await reader.cancel();
    expect(/"turnId":"(t\d)"/.exec(head)![1]).toBe("t1");
    for (const turnId of ["t1", "t2"]) await call("alice", "POST", `/sessions/queued/turns/${turnId}/abort`);
  });

  it("the AI SDK's DefaultChatTransport, sending only the new message as ui-stream's README says, chats on past the body limit", async () => {
    const chatWith = (transport: DefaultChatTransport<TurnkitUIMessage>, id: string) =>
      new HeadlessChat({ id, transport, state: new MemoryChatState() });
    const options = { api: `${server.url}/chat`, headers: headers("alice") };
    // A turn, then a question that fits the 4 KiB limit alone but not with the history before it.
    const long = `please deploy ${"x".repeat(3000)}`;
    const slim = chatWith(
      new DefaultChatTransport<TurnkitUIMessage>({
        ...options,
        prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
          body: { id, messages: messages.slice(-1), trigger, messageId },
        }),
      }),
      "default-slim",
    );
    await slim.sendMessage({ text: "take a note" });
    const sending = slim.sendMessage({ text: long });
    // The deploy waits for its approval: the turn started; stop it there.
    await vi.waitFor(() => expect(JSON.stringify(slim.messages.at(-1))).toContain("approval-requested"), 30_000);
    await call("alice", "POST", `/sessions/default-slim/turns/${slim.messages.at(-1)!.metadata!.turnId}/abort`);
    await sending;
    expect([slim.status, slim.error?.message]).toEqual(["ready", undefined]);
    expect(slim.messages.map((m) => m.metadata?.status ?? m.role)).toEqual(["user", "completed", "user", "aborted"]);
    // Sending the whole history each time, the same chat is refused.
    const whole = chatWith(new DefaultChatTransport<TurnkitUIMessage>(options), "default-whole");
    await whole.sendMessage({ text: "take a note" });
    await whole.sendMessage({ text: long });
    expect([whole.status, whole.error?.message]).toEqual(["error", expect.stringContaining("body_too_large")]);
  }, 60_000);

  it("regenerating the latest answer replaces it, in the history a reload shows too; the first or an earlier one is refused", async () => {
    const send = (text: string, more: Record<string, unknown> = {}) =>
      call("alice", "POST", "/chat", {
        id: "regen",
        trigger: "submit-message",
        messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }],
        ...more,
      });
    const regenerate = (text: string, messageId?: string) => send(text, { trigger: "regenerate-message", messageId });
    const first = await readUIStream((await send("take a note")).body!);
    // The first answer has no turn before it to go back to.
    expect([(await regenerate("take a note")).status]).toEqual([409]);
    const second = await readUIStream((await send("take another note")).body!);
    const refused = await regenerate("take a note", first.message.id);
    expect([refused.status, (await refused.json()).code]).toEqual([409, "cannot_regenerate"]);
    const again = await readUIStream((await regenerate("take another note", second.message.id)).body!, (m) => !!m.id);
    expect(again.message.id).not.toBe(second.message.id);
    // What useChat shows after regenerate (the question, its new answer) is what a reload shows.
    const history = await (await call("alice", "GET", "/sessions/regen/messages")).json();
    expect(history.messages.map((m: TurnkitUIMessage) => (m.role === "user" ? textOf(m) : m.id))).toEqual([
      "take a note",
      first.message.id,
      "take another note",
    ]);
    expect(history.resumeTurnId).toBe(again.message.id);
    await call("alice", "POST", `/sessions/regen/turns/${again.message.id}/abort`);
  }, 60_000);

  it("a reader that dropped mid-stream resumes after its last seq and ends with the same message", async () => {
    const res = await chat("alice", "resume", "take a note");
    const raw = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while ((seen.match(/^id: /gm) ?? []).length < 12) seen += (await raw.read()).value;
    await raw.cancel();
    const complete = seen.slice(0, seen.lastIndexOf("\n\n") + 2);
    const lastId = [...complete.matchAll(/^id: (\d+)$/gm)].at(-1)![1];
    const turnId = /"turnId":"([^"]+)"/.exec(complete)![1];
    const rest = await call("alice", "GET", `/chat/resume/stream?turnId=${turnId}`, undefined, {
      "last-event-id": lastId,
    });
    const prefix = new Blob([complete.replace(/data: \[DONE\]\n\n$/, "")]).stream();
    const joined = new Blob([await new Response(prefix).text(), await rest.text()]).stream();
    const resumed = await readUIStream(joined);
    const whole = await readUIStream((await call("alice", "GET", `/chat/resume/stream?turnId=${turnId}`)).body!);
    expect(resumed.message).toEqual(whole.message);
    expect(textOf(whole.message)).toMatch(/^word1 .* wrap10$/);
  }, 60_000);
});
