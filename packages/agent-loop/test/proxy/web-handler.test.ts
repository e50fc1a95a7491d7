import { describe, expect, it } from "vitest";
import { createStreamProxyHandler } from "../../src/proxy-server/index.js";
import { createScriptedModel, hang, response } from "../../src/testing/index.js";
import { contextOf, GOOD_AUTH, whenAborted, withSignals } from "./proxy-test-server.js";

/** The web-standard handler on its own, as a fetch-style server (Deno, Bun, Hono) calls it: no node:http in between. */
describe("createStreamProxyHandler as a (Request) => Promise<Response> handler", () => {
  const setup = () => {
    const behind = createScriptedModel([hang({ afterEvents: 3, response: response("Counting one two three") })]);
    const upstream = withSignals(behind.streamFn);
    const handler = createStreamProxyHandler({
      streamFn: upstream.streamFn,
      authorize: ({ body }) => ({ type: "allow", model: body.model }),
    });
    const body = JSON.stringify({ model: behind.model, context: contextOf("Count") });
    return { behind, upstream, handler, body };
  };

  it("streams SSE frames; cancelling the response body aborts the provider request", async () => {
    const { upstream, handler, body } = setup();

    const answer = await handler(
      new Request("http://proxy.test/api/stream", { method: "POST", headers: GOOD_AUTH, body }),
    );
    const reader = answer.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("text_delta")) text += decoder.decode((await reader.read()).value);
    await reader.cancel();

    expect(answer.status).toBe(200);
    expect(text.split("\n\n")[0]).toBe('data: {"type":"start"}');
    await whenAborted(upstream.signals[0]);
    expect(upstream.signals[0]?.aborted).toBe(true);
  });

  it("the Request's signal aborting (the server saw the client go) aborts the provider request", async () => {
    const { upstream, handler, body } = setup();
    const client = new AbortController();

    const answer = await handler(
      new Request("http://proxy.test/api/stream", { method: "POST", headers: GOOD_AUTH, body, signal: client.signal }),
    );
    client.abort();

    expect(answer.status).toBe(200);
    await whenAborted(upstream.signals[0]);
    expect(upstream.signals[0]?.aborted).toBe(true);
  });
});
