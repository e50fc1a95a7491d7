import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, streamProxy, type AgentEvent } from "../../src/index.js";
import { createScriptedModel, hang, response } from "../../src/testing/index.js";
import {
  collect,
  contextOf,
  eventShapes,
  GOOD_TOKEN,
  startProxyServer,
  whenAborted,
  withSignals,
  type TestProxyServer,
} from "./proxy-test-server.js";

/** Given a model that streams three events and then waits, when the client aborts or goes away. */
describe("aborting a proxied request", () => {
  let server: TestProxyServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const hanging = () => createScriptedModel([hang({ afterEvents: 3, response: response("Counting one two three") })]);

  it("abort mid-stream: the response ends aborted with what had streamed, and the provider request is aborted", async () => {
    const behind = hanging();
    const upstream = withSignals(behind.streamFn);
    server = await startProxyServer({ streamFn: upstream.streamFn });
    const controller = new AbortController();
    const stream = streamProxy(behind.model, contextOf("Count"), {
      authToken: GOOD_TOKEN,
      proxyUrl: server.url,
      signal: controller.signal,
    });
    const events = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    const result = await stream.result();

    expect(eventShapes(events)).toEqual(["start", "text_start", 'text_delta "Counting"', "error"]);
    expect(result).toMatchObject({
      stopReason: "aborted",
      errorMessage: "Request aborted by user",
      content: [{ type: "text", text: "Counting" }],
    });
    await whenAborted(upstream.signals[0]);
    expect(upstream.signals[0]?.aborted).toBe(true);
  });

  it("Agent.abort() while a proxied response streams: the run ends aborted and makes no further request", async () => {
    const behind = createScriptedModel([
      hang({ afterEvents: 3, response: response("Counting one two three") }),
      "never requested",
    ]);
    const upstream = withSignals(behind.streamFn);
    server = await startProxyServer({ streamFn: upstream.streamFn });
    const agent = new Agent({
      initialState: { model: behind.model },
      streamFn: (model, context, options) =>
        streamProxy(model, context, { ...options, authToken: GOOD_TOKEN, proxyUrl: server!.url }),
    });
    const types: string[] = [];
    agent.subscribe((event: AgentEvent) => {
      types.push(event.type === "message_update" ? event.assistantMessageEvent.type : event.type);
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") agent.abort();
    });

    await agent.prompt("Count");

    expect(types.slice(-4)).toEqual(["text_delta", "message_end", "turn_end", "agent_end"]);
    expect(agent.state.messages.at(-1)).toMatchObject({
      stopReason: "aborted",
      errorMessage: "Request aborted by user",
      content: [{ type: "text", text: "Counting" }],
    });
    expect(behind.requests).toHaveLength(1);
    await whenAborted(upstream.signals[0]);
  });

  it("a signal aborted before the call: an aborted error event, no provider request", async () => {
    const behind = hanging();
    server = await startProxyServer({ streamFn: behind.streamFn });

    const { events, result } = await collect(
      streamProxy(behind.model, contextOf("Count"), {
        authToken: GOOD_TOKEN,
        proxyUrl: server.url,
        signal: AbortSignal.abort(),
      }),
    );

    expect(eventShapes(events)).toEqual(["error"]);
    expect(result).toMatchObject({ stopReason: "aborted", content: [] });
    expect(result.errorMessage).toMatch(/aborted/i);
    expect(behind.requests).toHaveLength(0);
  });

  it("a client that disconnects (the socket closes) aborts the provider request", async () => {
    const behind = hanging();
    const upstream = withSignals(behind.streamFn);
    server = await startProxyServer({ streamFn: upstream.streamFn });
    const body = JSON.stringify({ model: behind.model, context: contextOf("Count"), options: {} });

    await new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(
        `${server!.url}/api/stream`,
        { method: "POST", headers: { authorization: `Bearer ${GOOD_TOKEN}`, "content-type": "application/json" } },
        (incoming) => {
          incoming.once("data", () => {
            outgoing.destroy();
            resolve();
          });
        },
      );
      outgoing.on("error", (error) => (error.message === "socket hang up" ? undefined : reject(error)));
      outgoing.end(body);
    });

    await whenAborted(upstream.signals[0]);
    expect(upstream.signals[0]?.aborted).toBe(true);
    expect(server.errors).toEqual([]);
  });
});
