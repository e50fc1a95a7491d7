import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStream,
  Context,
  Model,
} from "@mariozechner/pi-ai";
import {
  createStreamProxyHandler,
  toNodeListener,
  type ProxyAuthorizationRequest,
  type StreamProxyHandlerOptions,
} from "../../src/proxy-server/index.js";
import type { StreamFn } from "../../src/index.js";

/** A proxy server started on 127.0.0.1 for one test. */
export interface TestProxyServer {
  /** `http://127.0.0.1:<port>`: pass as `proxyUrl`. */
  url: string;
  /** What `authorize` saw, one entry per request that reached it. */
  authorizations: ProxyAuthorizationRequest[];
  /** Errors reported to `onError`, with their stage. */
  errors: { error: unknown; stage: string }[];
  close(): Promise<void>;
}

/** The token the default `authorize` accepts. */
export const GOOD_TOKEN = "good-token";

/** The `Authorization` header `streamProxy` sends with {@link GOOD_TOKEN}, for requests a test makes by hand. */
export const GOOD_AUTH = { authorization: `Bearer ${GOOD_TOKEN}` };

/**
 * Starts `createStreamProxyHandler` behind `toNodeListener` on an ephemeral
 * port. The default `authorize` accepts {@link GOOD_TOKEN} with key
 * `server-key` and serves the model the client asked for; others are denied.
 */
export async function startProxyServer(options: Partial<StreamProxyHandlerOptions> = {}): Promise<TestProxyServer> {
  const authorizations: ProxyAuthorizationRequest[] = [];
  const errors: { error: unknown; stage: string }[] = [];
  const handler = createStreamProxyHandler({
    ...options,
    authorize: async (input) => {
      authorizations.push(input);
      if (options.authorize) return options.authorize(input);
      if (input.authToken !== GOOD_TOKEN) return { type: "deny", message: "unknown token" };
      return { type: "allow", model: input.body.model, apiKey: "server-key" };
    },
    onError: (error, stage) => errors.push({ error, stage }),
  });
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every event of `stream` and its result. */
export async function collect(
  stream: AssistantMessageEventStream,
): Promise<{ events: AssistantMessageEvent[]; result: AssistantMessage }> {
  const events: AssistantMessageEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}

/** The event types of `events` with their delta or content index, for comparing sequences. */
export function eventShapes(events: readonly AssistantMessageEvent[]): string[] {
  return events.map((event) => ("delta" in event ? `${event.type} ${JSON.stringify(event.delta)}` : event.type));
}

/** A message without the fields that differ between the direct and the proxied path (timestamp). */
export function comparable(message: AssistantMessage): Omit<AssistantMessage, "timestamp"> {
  const { timestamp: _timestamp, ...rest } = structuredClone(message);
  return rest;
}

/** A user-only context. */
export function contextOf(text: string, extra: Partial<Context> = {}): Context {
  return { systemPrompt: "Be brief.", messages: [{ role: "user", content: text, timestamp: 1 }], ...extra };
}

/** A `StreamFn` that records each request's signal before calling `streamFn`. */
export function withSignals(streamFn: StreamFn): { streamFn: StreamFn; signals: (AbortSignal | undefined)[] } {
  const signals: (AbortSignal | undefined)[] = [];
  return {
    signals,
    streamFn: (model: Model<any>, context, options) => {
      signals.push(options?.signal);
      return streamFn(model, context, options);
    },
  };
}

/** Resolves when `signal` aborts. */
export function whenAborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
