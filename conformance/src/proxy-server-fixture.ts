import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentEvent, StreamFn } from "@mariozechner/pi-agent-core";
import { createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import { createStreamProxyHandler, toNodeListener } from "@turnkit/agent-loop/proxy-server";
import type { ScenarioContext } from "./scenario.js";
import type { TraceRecorder } from "./trace-recorder.js";

/** The token the fixture's server accepts; any other is denied with "unknown token". */
export const PROXY_TOKEN = "scenario-token";

/** The key the fixture's server hands the model: request lines show `apiKey=proxy-key`. */
export const PROXY_API_KEY = "proxy-key";

/** What a proxy scenario gets: the client stream function of the implementation under test. */
export interface ProxyRun {
  /** `impl.streamProxy` aimed at the server, with `authToken` (default {@link PROXY_TOKEN}). */
  streamFn(authToken?: string): StreamFn;
}

/**
 * Runs `body` with Turnkit's stream-proxy server on 127.0.0.1 in front of
 * the scenario's scripted model (so its requests are trace lines, as the
 * server makes them), and closes the server afterwards. Both
 * implementations talk to the same server code: pi's `streamProxy` on pi's
 * side, ours on ours. The model pauses after each `start` until the trace
 * has recorded that response's `message_start`, so what the line shows does
 * not depend on how the network split the response into chunks.
 */
export async function withProxyServer(ctx: ScenarioContext, body: (proxy: ProxyRun) => Promise<void>): Promise<void> {
  const handler = createStreamProxyHandler({
    streamFn: pauseAfterStart(ctx.streamFn, ctx.trace),
    authorize: ({ authToken, body: request }) =>
      authToken === PROXY_TOKEN
        ? { type: "allow", model: request.model, apiKey: PROXY_API_KEY }
        : { type: "deny", message: "unknown token" },
  });
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await body({
      streamFn:
        (authToken = PROXY_TOKEN) =>
        (model, context, options) =>
          ctx.impl.streamProxy(model, context, { ...options, authToken, proxyUrl }),
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * Wraps the model behind the server: after each response's `start` event,
 * nothing more is streamed until the trace records a `message_start` for an
 * assistant message it has not yet seen (or the request is aborted). The
 * client fills one mutable partial as chunks arrive, so without the pause
 * `message_start`'s content would show however much text shared its chunk.
 */
function pauseAfterStart(streamFn: StreamFn, trace: TraceRecorder): StreamFn {
  const started = new Set<unknown>();
  const nextAssistantStart = () => {
    let matched: unknown;
    const isNewStart = (event: AgentEvent) => {
      if (event.type !== "message_start" || event.message.role !== "assistant" || started.has(event.message))
        return false;
      matched = event.message;
      return true;
    };
    return trace.whenEvent(isNewStart).then(() => started.add(matched));
  };
  return async (model, context, options) => {
    const upstream = await streamFn(model, context, options);
    const relay = createAssistantMessageEventStream();
    const aborted = new Promise<void>((resolve) =>
      options?.signal?.addEventListener("abort", () => resolve(), { once: true }),
    );
    void (async () => {
      for await (const event of upstream) {
        relay.push(event);
        if (event.type === "start") await Promise.race([nextAssistantStart(), aborted]);
      }
      relay.end();
    })();
    return relay;
  };
}
