import type { AssistantMessage, Context, Model, SimpleStreamOptions, StopReason } from "@mariozechner/pi-ai";

/**
 * The wire protocol between `streamProxy` and a proxy server, exactly
 * as pi-agent-core 0.73.1 defines it, so either side interoperates with pi's:
 *
 * - the client POSTs JSON {@link ProxyRequestBody} to `${proxyUrl}/api/stream`
 *   with `Authorization: Bearer <authToken>`;
 * - the server answers `200` with server-sent events, one
 *   `data: <ProxyAssistantMessageEvent as JSON>` line per event, ending after
 *   `done` or `error`;
 * - or a non-2xx status with a JSON body `{ "error": "<message>" }`.
 */
export const PROXY_STREAM_PATH = "/api/stream";

/**
 * One event on the wire: pi-ai's `AssistantMessageEvent` without the
 * `partial` / `message` / `error` snapshots, which the client rebuilds from
 * the deltas. `toolcall_start` carries the call's id and name (the client
 * cannot take them from a partial); the `*_end` events carry the block's
 * signature; `done` and `error` carry the final usage.
 */
export type ProxyAssistantMessageEvent =
  | { type: "start" }
  | { type: "text_start"; contentIndex: number }
  | { type: "text_delta"; contentIndex: number; delta: string }
  | { type: "text_end"; contentIndex: number; contentSignature?: string }
  | { type: "thinking_start"; contentIndex: number }
  | { type: "thinking_delta"; contentIndex: number; delta: string }
  | { type: "thinking_end"; contentIndex: number; contentSignature?: string }
  | { type: "toolcall_start"; contentIndex: number; id: string; toolName: string }
  | { type: "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "toolcall_end"; contentIndex: number }
  | { type: "done"; reason: Extract<StopReason, "stop" | "length" | "toolUse">; usage: AssistantMessage["usage"] }
  | {
      type: "error";
      reason: Extract<StopReason, "aborted" | "error">;
      errorMessage?: string;
      usage: AssistantMessage["usage"];
    };

/**
 * The stream options that travel to the server. Everything else a stream
 * function receives (`apiKey`, `signal`, `onPayload`, `timeoutMs`, ...)
 * stays on the client: the server decides the key and its own limits.
 */
export type ProxySerializableStreamOptions = Pick<
  SimpleStreamOptions,
  | "temperature"
  | "maxTokens"
  | "reasoning"
  | "cacheRetention"
  | "sessionId"
  | "headers"
  | "metadata"
  | "transport"
  | "thinkingBudgets"
  | "maxRetryDelayMs"
>;

/** The option names of {@link ProxySerializableStreamOptions}, in pi's order. */
export const PROXY_STREAM_OPTION_KEYS = [
  "temperature",
  "maxTokens",
  "reasoning",
  "cacheRetention",
  "sessionId",
  "headers",
  "metadata",
  "transport",
  "thinkingBudgets",
  "maxRetryDelayMs",
] as const satisfies readonly (keyof ProxySerializableStreamOptions)[];

/** The JSON body of a proxy request: the model the client asks for, the context to send it, and the serialisable options. */
export interface ProxyRequestBody {
  /** The model the client asks for; the server's `authorize` decides whether, and with which model, it is served. */
  model: Model<any>;
  /** The system prompt, messages and tools to send. */
  context: Context;
  /** The JSON-safe stream options only ({@link pickSerializableOptions}); no signal or callbacks cross the wire. */
  options: ProxySerializableStreamOptions;
}

/** Only the serialisable options of `options`, in pi's order; absent ones stay absent after `JSON.stringify`. */
export function pickSerializableOptions(
  options: Partial<ProxySerializableStreamOptions>,
): ProxySerializableStreamOptions {
  const picked: Record<string, unknown> = {};
  for (const key of PROXY_STREAM_OPTION_KEYS) picked[key] = options[key];
  return picked as ProxySerializableStreamOptions;
}
