import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEventStream,
  type Context,
  type Model,
} from "@mariozechner/pi-ai";
import { onAbort } from "../shared-abort-listener.js";
import { describeValue, isRecord } from "../message-checks.js";
import { applyProxyEvent, emptyProxyMessage, proxyEventProblem } from "./proxy-partial-message.js";
import {
  PROXY_STREAM_PATH,
  pickSerializableOptions,
  type ProxyAssistantMessageEvent,
  type ProxyRequestBody,
  type ProxySerializableStreamOptions,
} from "./proxy-protocol.js";

/**
 * Options of {@link streamProxy}: the serialisable stream options (sent to
 * the server as they are), plus where the server is and how to authenticate.
 * The same fields as pi-agent-core 0.73.1's `ProxyStreamOptions`.
 */
export interface ProxyStreamOptions extends ProxySerializableStreamOptions {
  /** Aborts the proxy request; the stream then ends with an `error` event, reason `"aborted"`. */
  signal?: AbortSignal;
  /** Sent as `Authorization: Bearer <authToken>`; the server decides what it means. */
  authToken: string;
  /** The server's base URL (e.g. `"https://genai.example.com"`); the request goes to `<proxyUrl>/api/stream`. */
  proxyUrl: string;
}

/** The error message of a request aborted after the server answered. */
const ABORTED_BY_USER = "Request aborted by user";

/** The error message when the server's event stream closes before `done` or `error`. */
const ENDED_WITHOUT_TERMINAL = "Proxy stream ended without a done or error event";

/**
 * A stream function (`streamSimple`'s shape) that sends the request to a
 * proxy server instead of a provider: the server holds the provider keys and
 * streams the response back without partial snapshots, and this function
 * rebuilds them. Use it as an `Agent`'s or `agentLoop`'s stream function:
 *
 * ```ts
 * streamFn: (model, context, options) =>
 *   streamProxy(model, context, { ...options, authToken: await getToken(), proxyUrl: "https://genai.example.com" }),
 * ```
 *
 * Behaves as pi-agent-core 0.73.1's `streamProxy`: it never throws or
 * rejects; every event carries one mutable partial message (stamped with the
 * requested model and the time of the call); a non-2xx answer ends the
 * stream with an `error` event whose message is `Proxy error: <the body's
 * "error", or the status>`; a network failure, unreadable JSON or an event
 * for a block of the wrong kind ends it with an `error` event carrying that
 * error's message; after an abort the reason is `"aborted"`. Only the
 * serialisable options are sent: `apiKey` never leaves the client.
 *
 * Where it goes further than pi: a server that closes the stream without
 * `done` or `error` ends it with an `error` event (pi leaves `result()`
 * pending forever); an event that breaks the message's shape (not an
 * object, a block index out of range or not an integer, a delta, id or
 * tool name that is no string, an unknown stop reason, a usage without its
 * numbers) ends it with an `error` event naming the field, instead of
 * reaching the transcript (where the next request would fail on it); and a
 * last event without a trailing newline is still read. A call whose model
 * or options it cannot use (no options object, a `proxyUrl` or `authToken`
 * that is no string, a `signal` that is no `AbortSignal`) ends the stream
 * with an `error` event naming the field, without a request (pi's hangs or
 * rejects out of reach).
 */
export function streamProxy(
  model: Model<any>,
  context: Context,
  options: ProxyStreamOptions,
): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  const problem = callProblem(model, options);
  if (problem === undefined) {
    void relayProxyResponse(stream, model, context, options);
    return stream;
  }
  const partial = emptyProxyMessage(isRecord(model) ? model : UNKNOWN_MODEL);
  partial.stopReason = "error";
  partial.errorMessage = `streamProxy: ${problem}`;
  stream.push({ type: "error", reason: "error", error: partial });
  stream.end();
  return stream;
}

/** Stands in for a model that is no object, in the error that says so. */
const UNKNOWN_MODEL = { api: "unknown", provider: "unknown", id: "unknown" } as Model<any>;

/** What makes a call unusable before any request (`undefined`: nothing). */
function callProblem(model: unknown, options: unknown): string | undefined {
  if (!isRecord(model)) return `model must be a pi-ai Model object, got ${describeValue(model)}`;
  if (!isRecord(options)) return `options must be an object with proxyUrl and authToken, got ${describeValue(options)}`;
  const { proxyUrl, authToken, signal } = options;
  if (typeof proxyUrl !== "string" || proxyUrl === "")
    return `options.proxyUrl must be the server's base URL, got ${describeValue(proxyUrl)}`;
  if (typeof authToken !== "string") return `options.authToken must be a string, got ${describeValue(authToken)}`;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    return `options.signal must be an AbortSignal, got ${describeValue(signal)}`;
  return undefined;
}

/** Runs one proxy request into `stream`; never rejects. */
async function relayProxyResponse(
  stream: AssistantMessageEventStream,
  model: Model<any>,
  context: Context,
  options: ProxyStreamOptions,
): Promise<void> {
  const partial = emptyProxyMessage(model);
  const { signal } = options;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // Registered before fetch's own listener, so a read in flight ends as "aborted by user".
  const stopListening = signal && onAbort(signal, () => void reader?.cancel(ABORTED_BY_USER).catch(() => undefined));
  try {
    const body: ProxyRequestBody = { model, context, options: pickSerializableOptions(options) };
    const response = await fetch(`${options.proxyUrl}${PROXY_STREAM_PATH}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${options.authToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    if (!response.ok) throw new Error(await proxyErrorMessage(response));
    reader = response.body?.getReader();
    const ended = reader ? await relayEvents(reader, stream, partial, signal) : false;
    if (!ended) throw new Error(ENDED_WITHOUT_TERMINAL);
    stream.end();
    // Reading the rest (normally just the end of the body) lets the connection be reused.
    await discardRest(reader!);
  } catch (error) {
    partial.stopReason = signal?.aborted ? "aborted" : "error";
    partial.errorMessage = error instanceof Error ? error.message : String(error);
    stream.push({ type: "error", reason: partial.stopReason, error: partial });
  } finally {
    stopListening?.();
    stream.end();
  }
}

/**
 * Reads `data:` lines into `stream` until the terminal event (returns
 * true) or the end of the body (returns false). Throws on an abort,
 * unreadable JSON or a mismatched event.
 */
async function relayEvents(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  stream: AssistantMessageEventStream,
  partial: AssistantMessage,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const decoder = new TextDecoder();
  let buffered = "";
  const relayLine = (line: string): boolean => {
    if (!line.startsWith("data: ")) return false;
    const data = line.slice("data: ".length).trim();
    if (!data) return false;
    const wire: unknown = JSON.parse(data);
    const problem = proxyEventProblem(wire, partial);
    if (problem) throw new Error(problem);
    const event = applyProxyEvent(wire as ProxyAssistantMessageEvent, partial);
    if (!event) return false;
    stream.push(event);
    return event.type === "done" || event.type === "error";
  };
  for (;;) {
    if (signal?.aborted) throw new Error(ABORTED_BY_USER);
    const { done, value } = await reader.read();
    if (signal?.aborted) throw new Error(ABORTED_BY_USER);
    if (done) return relayLine(buffered + decoder.decode());
    buffered += decoder.decode(value, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) if (relayLine(line)) return true;
  }
}

/** Reads `reader` to its end, ignoring what comes; an abort cancels it. Never throws. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done) {
      // Anything after the final event is not part of the response.
    }
  } catch {
    // The response is complete; a broken connection afterwards changes nothing.
  }
}

/** `Proxy error: <body.error>` when the body is JSON with an `error`, else `Proxy error: <status> <statusText>`. */
async function proxyErrorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    if (body.error) return `Proxy error: ${body.error}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return `Proxy error: ${response.status} ${response.statusText}`;
}
