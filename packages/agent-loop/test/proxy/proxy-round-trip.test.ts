import {
  fauxAssistantMessage,
  fauxThinking,
  fauxText,
  registerFauxProvider,
  Type,
  type AssistantMessage,
  type FauxProviderRegistration,
} from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, streamProxy, type AgentEvent, type StreamFn } from "../../src/index.js";
import { createScriptedModel, response, text, thinking, toolCall } from "../../src/testing/index.js";
import {
  collect,
  comparable,
  contextOf,
  eventShapes,
  GOOD_AUTH,
  GOOD_TOKEN,
  startProxyServer,
  type TestProxyServer,
} from "./proxy-test-server.js";
import { testTool, textResult } from "../support/scenario.js";

/** Given a scripted or faux model behind our proxy server, when our `streamProxy` calls it over 127.0.0.1. */
describe("streamProxy through the stream-proxy handler", () => {
  let server: TestProxyServer | undefined;
  let faux: FauxProviderRegistration | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    faux?.unregister();
    faux = undefined;
  });

  const proxied =
    (url: string, token = GOOD_TOKEN): StreamFn =>
    (model, context, options) =>
      streamProxy(model, context, { ...options, authToken: token, proxyUrl: url });

  it("text: the same events and final message as calling the model directly", async () => {
    const script = () => [
      response("Hello there, friend", {
        usage: {
          input: 3,
          output: 4,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 7,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
      }),
    ];
    const direct = createScriptedModel(script());
    const behind = createScriptedModel(script());
    server = await startProxyServer({ streamFn: behind.streamFn });

    const expected = await collect(await direct.streamFn(direct.model, contextOf("Hi"), {}));
    const actual = await collect(
      streamProxy(behind.model, contextOf("Hi"), { authToken: GOOD_TOKEN, proxyUrl: server.url }),
    );

    expect(eventShapes(actual.events)).toEqual(eventShapes(expected.events));
    expect(eventShapes(actual.events)).toEqual([
      "start",
      "text_start",
      'text_delta "Hello"',
      'text_delta " there,"',
      'text_delta " friend"',
      "text_end",
      "done",
    ]);
    expect(comparable(actual.result)).toEqual(comparable(expected.result));
    expect(actual.result.usage.totalTokens).toBe(7);
    // One partial object throughout, as pi's client does.
    const partials = new Set(
      actual.events.map((event) =>
        "partial" in event ? event.partial : event.type === "done" ? event.message : event.error,
      ),
    );
    expect(partials.size).toBe(1);
  });

  it("thinking and text keep their signatures; the request reaches the model as sent, with the server's key", async () => {
    const behind = createScriptedModel([
      response([thinking("Two plus two", { signature: "sig-think" }), text("It is 4.", { signature: "sig-text" })]),
    ]);
    server = await startProxyServer({ streamFn: behind.streamFn });

    const { events, result } = await collect(
      streamProxy(behind.model, contextOf("2+2?"), {
        authToken: GOOD_TOKEN,
        proxyUrl: server.url,
        temperature: 0.2,
        reasoning: "high",
        sessionId: "s-1",
        headers: { "x-trace": "t" },
        apiKey: "client-key",
      } as never),
    );

    expect(eventShapes(events)).toEqual([
      "start",
      "thinking_start",
      'thinking_delta "Two"',
      'thinking_delta " plus"',
      'thinking_delta " two"',
      "thinking_end",
      "text_start",
      'text_delta "It"',
      'text_delta " is"',
      'text_delta " 4."',
      "text_end",
      "done",
    ]);
    expect(result.content).toEqual([
      { type: "thinking", thinking: "Two plus two", thinkingSignature: "sig-think" },
      { type: "text", text: "It is 4.", textSignature: "sig-text" },
    ]);
    const request = behind.lastRequest()!;
    expect(request.context.systemPrompt).toBe("Be brief.");
    expect(request.context.messages).toEqual([{ role: "user", content: "2+2?", timestamp: 1 }]);
    expect(request.options).toMatchObject({
      temperature: 0.2,
      reasoning: "high",
      sessionId: "s-1",
      headers: { "x-trace": "t" },
      apiKey: "server-key",
    });
    expect(server.authorizations[0].authToken).toBe(GOOD_TOKEN);
    expect(server.authorizations[0].body.options).toEqual({
      temperature: 0.2,
      reasoning: "high",
      sessionId: "s-1",
      headers: { "x-trace": "t" },
    });
  });

  it("tool calls: an Agent runs a tool step and an answer through the proxy", async () => {
    const behind = createScriptedModel([
      response(toolCall("add", { a: 2, b: 3 })),
      (request) => `The sum is ${JSON.stringify(request.context.messages.at(-1)?.content)}`,
    ]);
    server = await startProxyServer({ streamFn: behind.streamFn });
    const add = testTool("add", {
      parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
      execute: async (_id, params: { a: number; b: number }) => textResult(String(params.a + params.b)),
    });
    const agent = new Agent({ initialState: { model: behind.model, tools: [add] }, streamFn: proxied(server.url) });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
    });

    await agent.prompt("add 2 and 3");

    const toolCallEvents = events.filter(
      (event) => event.type === "message_update" && event.assistantMessageEvent.type.startsWith("toolcall"),
    );
    expect(toolCallEvents.map((event) => event.type === "message_update" && event.assistantMessageEvent.type)).toEqual([
      "toolcall_start",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_end",
    ]);
    expect(agent.state.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    const call = (agent.state.messages[1] as AssistantMessage).content[0];
    expect(call).toEqual({ type: "toolCall", id: "call_1", name: "add", arguments: { a: 2, b: 3 } });
    expect(behind.requests[1].context.tools?.map((tool) => tool.name)).toEqual(["add"]);
    expect(behind.requests[1].context.messages.at(-1)).toMatchObject({
      role: "toolResult",
      toolCallId: "call_1",
      content: [{ type: "text", text: "5" }],
    });
    expect((agent.state.messages[3] as AssistantMessage).content).toEqual([
      { type: "text", text: 'The sum is [{"type":"text","text":"5"}]' },
    ]);
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("any pi-ai model: pi-ai's faux provider behind the default streamSimple", async () => {
    faux = registerFauxProvider({ api: "faux-proxy-test", provider: "faux-proxy-test" });
    faux.setResponses([fauxAssistantMessage([fauxThinking("hmm"), fauxText("hello from faux")])]);
    server = await startProxyServer({});

    const { events, result } = await collect(
      streamProxy(faux.getModel(), contextOf("hi"), { authToken: GOOD_TOKEN, proxyUrl: server.url }),
    );

    expect(events[0].type).toBe("start");
    expect(events.at(-1)?.type).toBe("done");
    expect(result.content).toEqual([
      { type: "thinking", thinking: "hmm" },
      { type: "text", text: "hello from faux" },
    ]);
    expect(result).toMatchObject({ stopReason: "stop", api: "faux-proxy-test", provider: "faux-proxy-test" });
    expect(faux.state.callCount).toBe(1);
  });

  it("the host's model and options replace the client's; unknown client options never reach the provider", async () => {
    const behind = createScriptedModel(["served"]);
    server = await startProxyServer({
      streamFn: behind.streamFn,
      authorize: ({ body }) => ({
        type: "allow",
        model: { ...body.model, id: "host-chosen" },
        apiKey: "k",
        options: { headers: undefined, maxTokens: 50 },
      }),
    });

    const raw = await fetch(`${server.url}/api/stream`, {
      method: "POST",
      headers: GOOD_AUTH,
      body: JSON.stringify({
        model: behind.model,
        context: contextOf("hi"),
        options: { headers: { x: "y" }, maxTokens: 9999, apiKey: "stolen", onPayload: "x" },
      }),
    });

    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = (await raw.text()).split("\n\n").filter(Boolean);
    expect(frames.map((frame) => JSON.parse(frame.slice("data: ".length)).type)).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_end",
      "done",
    ]);
    const request = behind.lastRequest()!;
    expect(request.model.id).toBe("host-chosen");
    expect(request.options).toEqual({ maxTokens: 50, apiKey: "k" });
  });
});
