import type { ChatRequestOptions, ChatTransport, UIMessage, UIMessageChunk } from "ai";
import { DEFAULT_RECONNECT_ATTEMPTS, DEFAULT_RECONNECT_DELAY_MS, TURN_ID_HEADER } from "./defaults.js";
import { UIStreamError, UIStreamErrorCode } from "./errors.js";
import { readSseEvents } from "./sse-events.js";
import { assertOptionsObject, readOr, shownType } from "./argument-checks.js";

/** Headers, or a function giving them (for a token that changes). */
export type HeadersSource = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/** Options of {@link TurnkitChatTransport}. */
export interface TurnkitChatTransportOptions {
  /** Where the chat routes are: `POST <api>` starts a turn, `GET <api>/<chatId>/stream` resumes one. Default `/chat`. */
  api?: string;
  /** Sent with every request (e.g. `Authorization: Bearer …`). */
  headers?: HeadersSource;
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch;
  /** Reconnects of one broken stream before it fails. Default 5. */
  reconnectAttempts?: number;
  /** Wait before the first reconnect, doubled for each next one. Default 250 ms. */
  reconnectDelayMs?: number;
  /**
   * Called with the turn a stream follows as soon as its id is known: before
   * any chunk when the server names it in the {@link TURN_ID_HEADER} header
   * (a turn queued behind another is silent until it runs, and a page stops
   * it by this id), else at the `start` chunk. Once per stream: reconnects of
   * the same turn do not call it again. A throw fails the stream.
   */
  onTurn?: (turn: { chatId: string; turnId: string }) => void;
}

interface StreamRequest {
  chatId: string;
  headers: Record<string, string>;
  signal: AbortSignal | undefined;
}

/**
 * A `useChat` transport (the AI SDK's `ChatTransport`) for a Turnkit
 * server that speaks the UI message stream with `seq` ids, such as
 * `examples/durable-server`:
 *
 * - `sendMessages` posts `{ id, messages: [the new message], trigger,
 *   messageId }` to `api` (the server holds the history, so earlier
 *   messages are not sent again) and streams the answer.
 * - When the connection drops mid-stream (a network error, or a body that
 *   ends before `[DONE]`), it reconnects to `GET <api>/<chatId>/stream`
 *   with `Last-Event-ID` (the last whole event seen) and `?turnId=` (from
 *   the `start` chunk, or before it from the `X-Turnkit-Turn-Id` header
 *   the server may set, {@link TURN_ID_HEADER}), and
 *   the stream goes on where it was: `useChat` sees one unbroken stream,
 *   nothing lost or repeated, also when the drop fell between two chunks
 *   of one event (the server sends that event again whole; the chunks
 *   already handed on are skipped). After `reconnectAttempts` failures the
 *   stream errors with `UIStreamError` `reconnect_failed`.
 * - `reconnectToStream` (`useChat({ resume: true })` after a page load)
 *   asks the same route without `Last-Event-ID`: the server replays the
 *   running turn from its start (`resumeStreamIsReplay`), or answers 204
 *   when none runs. `resumeStream({ body: { turnId } })` asks for that turn
 *   (`?turnId=`), which the server streams whether or not it still runs.
 * - `stop()` of `useChat` only closes the connection; the turn goes on.
 *   Abort it explicitly on the server, by the id `onTurn` gives (also for
 *   a turn still queued, whose stream has sent nothing yet).
 *
 * A non-2xx answer throws `UIStreamError` `http_status` with the status
 * and the body's text. The constructor throws a `TypeError` naming the
 * option when `options` is no object, `api` no string or `fetch` no
 * function.
 */
export class TurnkitChatTransport<M extends UIMessage = UIMessage> implements ChatTransport<M> {
  /** The reconnect route replays a turn from its start, so the AI SDK resets the message it rebuilds. */
  readonly resumeStreamIsReplay = true;
  private readonly api: string;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: TurnkitChatTransportOptions = {}) {
    assertOptionsObject("TurnkitChatTransport", "options", options);
    if (options.api !== undefined && typeof options.api !== "string")
      throw new TypeError(`TurnkitChatTransport: options.api must be a string, got ${shownType(options.api)}`);
    if (options.fetch !== undefined && typeof options.fetch !== "function")
      throw new TypeError(`TurnkitChatTransport: options.fetch must be a function, got ${shownType(options.fetch)}`);
    if (options.onTurn !== undefined && typeof options.onTurn !== "function")
      throw new TypeError(`TurnkitChatTransport: options.onTurn must be a function, got ${shownType(options.onTurn)}`);
    if (options.headers !== undefined && typeof options.headers !== "function" && !isHeaderRecord(options.headers))
      throw new TypeError(
        `TurnkitChatTransport: options.headers must be an object of header values or a function answering one, got ${shownType(options.headers)}`,
      );
    this.api = options.api ?? "/chat";
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async sendMessages(
    options: {
      trigger: "submit-message" | "regenerate-message";
      chatId: string;
      messageId: string | undefined;
      messages: M[];
      abortSignal: AbortSignal | undefined;
    } & ChatRequestOptions,
  ): Promise<ReadableStream<UIMessageChunk>> {
    assertOptionsObject("TurnkitChatTransport.sendMessages", "options", options);
    const messages: unknown = readOr(() => options.messages, undefined);
    if (shownType(messages) !== "an array")
      throw new TypeError(
        `TurnkitChatTransport.sendMessages: options.messages must be an array of UI messages, got ${shownType(messages)}`,
      );
    const headers = await this.headersFor(options.headers);
    const last = (messages as M[]).at(-1);
    const response = await this.fetchFn(this.api, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({
        ...options.body,
        id: options.chatId,
        messages: last ? [last] : [],
        trigger: options.trigger,
        messageId: options.messageId,
      }),
      signal: options.abortSignal,
    });
    await assertOk(response);
    return this.follow(response, { chatId: options.chatId, headers, signal: options.abortSignal });
  }

  async reconnectToStream(
    options: { chatId: string; abortSignal?: AbortSignal } & ChatRequestOptions,
  ): Promise<ReadableStream<UIMessageChunk> | null> {
    assertOptionsObject("TurnkitChatTransport.reconnectToStream", "options", options);
    const headers = await this.headersFor(options.headers);
    const request = { chatId: options.chatId, headers, signal: options.abortSignal };
    const asked = (options.body as { turnId?: unknown } | undefined)?.turnId;
    const response = await this.resumeRequest(request, undefined, typeof asked === "string" ? asked : undefined);
    if (response.status === 204) return null;
    await assertOk(response);
    return this.follow(response, request);
  }

  /** The chunks of `first`, continued over reconnects until the server's `[DONE]`. */
  private follow(first: Response, request: StreamRequest): ReadableStream<UIMessageChunk> {
    const transport = this;
    async function* chunks(): AsyncGenerator<UIMessageChunk> {
      let response = first;
      let lastEventId: string | undefined;
      // Known before any chunk when the server names it (a queued turn's stream is silent until it runs).
      let turnId = first.headers.get(TURN_ID_HEADER) ?? undefined;
      const announce = (id: string | undefined) => {
        if (id !== undefined) transport.options.onTurn?.({ chatId: request.chatId, turnId: id });
      };
      announce(turnId);
      let failures = 0;
      // Chunks of the event being read that were handed on already: its last chunk (with the id) has not come.
      let partial = 0;
      for (;;) {
        // A resumed stream starts with the whole event after `lastEventId`: its chunks handed on are not repeated.
        let repeated = partial;
        try {
          for await (const event of readSseEvents(response.body!)) {
            if (event.data === "[DONE]") return;
            if (repeated > 0) repeated--;
            else {
              const chunk = JSON.parse(event.data) as UIMessageChunk;
              if (chunk.type === "start") {
                const started = (chunk.messageMetadata as { turnId?: string } | undefined)?.turnId;
                if (started !== turnId) announce(started);
                turnId = started;
              }
              yield chunk;
              partial++;
            }
            if (event.id !== undefined) {
              lastEventId = event.id;
              partial = 0;
            }
            failures = 0;
          }
        } catch (error) {
          if (request.signal?.aborted || !isNetworkError(error)) throw error;
        }
        // The stream broke before [DONE]: reconnect after the last whole event.
        response = await transport.reconnect(request, lastEventId ?? "0", turnId, ++failures);
      }
    }
    const iterator = chunks();
    return new ReadableStream<UIMessageChunk>({
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          if (request.signal?.aborted) controller.close();
          else controller.error(error);
        }
      },
      async cancel() {
        await iterator.return(undefined);
      },
    });
  }

  private async reconnect(
    request: StreamRequest,
    lastEventId: string,
    turnId: string | undefined,
    attempt: number,
  ): Promise<Response> {
    const attempts = this.options.reconnectAttempts ?? DEFAULT_RECONNECT_ATTEMPTS;
    for (let failure = attempt; ; failure++) {
      if (failure > attempts) {
        throw new UIStreamError({
          code: UIStreamErrorCode.ReconnectFailed,
          message: `the chat stream broke and ${attempts} reconnects failed`,
        });
      }
      await delay((this.options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS) * 2 ** (failure - 1), request.signal);
      try {
        const response = await this.resumeRequest(request, lastEventId, turnId);
        await assertOk(response);
        return response;
      } catch (error) {
        if (request.signal?.aborted || !isNetworkError(error)) throw error;
      }
    }
  }

  private resumeRequest(request: StreamRequest, lastEventId: string | undefined, turnId: string | undefined) {
    const query = turnId === undefined ? "" : `?turnId=${encodeURIComponent(turnId)}`;
    return this.fetchFn(`${this.api}/${encodeURIComponent(request.chatId)}/stream${query}`, {
      method: "GET",
      headers: { ...request.headers, ...(lastEventId !== undefined && { "last-event-id": lastEventId }) },
      signal: request.signal,
    });
  }

  /** The transport's own headers, then the call's; a `TypeError` naming them when either is no set of headers. */
  private async headersFor(extra: ChatRequestOptions["headers"]): Promise<Record<string, string>> {
    const own = typeof this.options.headers === "function" ? await this.options.headers() : this.options.headers;
    if (own !== undefined && !isHeaderRecord(own))
      throw new TypeError(
        `TurnkitChatTransport: options.headers() must answer an object of header values, got ${shownType(own)}`,
      );
    const more: Record<string, string> = {};
    let given: Headers;
    try {
      given = new Headers(extra ?? {});
    } catch {
      throw new TypeError(
        `TurnkitChatTransport: the call's headers must be an object, a list of [name, value] pairs or a Headers, got ${shownType(extra)}`,
      );
    }
    given.forEach((value, name) => {
      more[name] = value;
    });
    return { ...own, ...more };
  }
}

async function assertOk(response: Response): Promise<void> {
  if (response.ok) return;
  const text = await response.text().catch(() => "");
  throw new UIStreamError({
    code: UIStreamErrorCode.HttpStatus,
    status: response.status,
    message: `the chat server answered ${response.status}${text ? `: ${text}` : ""}`,
  });
}

/** A dropped connection (fetch's TypeError), as opposed to a server's answer or a bad chunk. */
function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // Removed when the delay ends: reconnects on one request's signal leave nothing on it.
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An object that can be read and is no list (a set of headers by name); never throws. */
function isHeaderRecord(value: unknown): value is Record<string, string> {
  return readOr(() => typeof value === "object" && value !== null && !Array.isArray(value), false);
}
