import type { AssistantMessage, AssistantMessageEvent, Context, ProviderResponse } from "@mariozechner/pi-ai";
import { RequestAbortController } from "../aborts.js";
import { attachClassifiedError, classifyError, type ClassifiedError } from "./classify-error.js";
import type { EventSink } from "./event-sink.js";
import type { LlmRetryNotification } from "./llm-config.js";
import { pipeEvents, type RelayStream } from "./relay-stream.js";
import { STREAM_ENDED_WITHOUT_FINAL_EVENT } from "./stream-errors.js";
import {
  createFailureMessage,
  errorText,
  invokeStreamFn,
  pushTerminalError,
  type AnyModel,
  type StreamFn,
  type StreamFnOptions,
} from "./stream-fn.js";

/** Sees each event of one attempt's stream as it arrives. Must not throw. */
export type AttemptEventObserver = (event: AssistantMessageEvent) => void;

/** What the attempts of one retry layer share. */
export interface AttemptLayer {
  readonly streamFn: StreamFn;
  /** Names the request family in notices. */
  readonly label: string;
  readonly notify: (notification: LlmRetryNotification) => void;
}

/**
 * The commit point of an attempt: true for the first event that shows the
 * user something (a non-empty text or thinking delta, or any tool-call
 * event). Before it, an attempt may be dropped and sent again; from it on,
 * the attempt is the answer and its later failures are final.
 */
export function isVisibleOutputEvent(event: AssistantMessageEvent): boolean {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
      return event.delta.length > 0;
    case "toolcall_start":
    case "toolcall_delta":
    case "toolcall_end":
      return true;
    default:
      return false;
  }
}

/**
 * One attempt of a request as the model fallback layer sends it (one per
 * model; the transport retry reads its attempts by pull, in `llm-retry`): sent with `maxRetries: 0`, its own signal
 * (following the caller's) and an `onResponse` that calls the caller's own
 * observer first (its result, a promise included, is what the stream
 * function awaits) and then remembers the response. Its events are held
 * back until the commit point, then passed on to `out`, and every later
 * one straight through; a failure after the commit point ends `out`. It is
 * the sink of the attempt's stream: once settled, reading stops.
 */
export class RetryAttempt implements EventSink {
  private readonly signal: RequestAbortController;
  /** The attempt's latest response (status and headers). */
  private lastResponse: ProviderResponse | undefined;
  /** Events held back until the commit point; `undefined` once committed. */
  private held: AssistantMessageEvent[] | undefined = [];
  private settled = false;
  private stop: (() => void) | undefined;
  /** Answers {@link send}: `undefined` at the commit point, or the failure before it. */
  private answer: ((failure: AttemptFailure | undefined) => void) | undefined;

  constructor(
    private readonly layer: AttemptLayer,
    private readonly out: RelayStream,
    private readonly model: AnyModel,
    private readonly callOptions: StreamFnOptions | undefined,
    private readonly attempt: number,
    private readonly observe: AttemptEventObserver | undefined,
  ) {
    this.signal = new RequestAbortController(callOptions?.signal);
  }

  /** Sends the attempt; resolves at its commit point (`undefined`) or with its failure before it. */
  send(context: Context): Promise<AttemptFailure | undefined> {
    const { callOptions, model, layer } = this;
    const callerObserver = callOptions?.onResponse;
    const options: StreamFnOptions = {
      ...callOptions,
      maxRetries: 0,
      signal: this.signal.signal,
      onResponse: (response, responseModel) => {
        try {
          return callerObserver?.(response, responseModel);
        } finally {
          this.lastResponse = { status: response.status, headers: { ...response.headers } };
        }
      },
    };
    const answered = new Promise<AttemptFailure | undefined>((resolve) => {
      this.answer = resolve;
    });
    this.stop = pipeEvents(invokeStreamFn(layer.streamFn, model, context, options), this);
    if (this.settled) this.stop();
    return answered;
  }

  event(event: AssistantMessageEvent): void {
    if (this.settled) return;
    this.observe?.(event);
    const { held, out } = this;
    if (held === undefined) {
      if (event.type === "error") return this.failAfterCommit(event.error);
      out.push(event);
      if (event.type === "done") this.finish();
      return;
    }
    if (event.type === "error") return this.failBeforeCommit(event.error);
    held.push(event);
    if (event.type === "done") {
      this.commit();
      this.finish();
    } else if (isVisibleOutputEvent(event)) {
      this.commit();
    }
  }

  end(): void {
    if (this.settled) return;
    this.failWith(createFailureMessage(this.model, "error", STREAM_ENDED_WITHOUT_FINAL_EVENT));
  }

  fail(error: unknown): void {
    if (this.settled) return;
    const aborted = this.callOptions?.signal?.aborted;
    this.failWith(createFailureMessage(this.model, aborted ? "aborted" : "error", errorText(error)));
  }

  private failWith(failure: AssistantMessage): void {
    if (this.held === undefined) this.failAfterCommit(failure);
    else this.failBeforeCommit(failure);
  }

  /** The attempt reached its commit point: what was held back goes out, and the request goes on with it. */
  private commit(): void {
    const { out, layer, attempt } = this;
    if (attempt > 1) layer.notify({ type: "recovered", label: layer.label, attempt });
    for (const event of this.held ?? []) out.push(event);
    this.held = undefined;
    this.answer?.(undefined);
  }

  /** Stops reading; the attempt's signal stops following the caller. */
  private settle(): void {
    this.settled = true;
    this.stop?.();
    this.signal.release();
  }

  /** The request finished with this attempt's `done`. */
  private finish(): void {
    this.settle();
    this.out.end();
  }

  /** Dropped before its commit point: its connection is closed through its own signal; the request decides what next. */
  private failBeforeCommit(failure: AssistantMessage): void {
    this.settle();
    this.signal.abort();
    this.answer?.(new AttemptFailure(failure, this.lastResponse));
  }

  /** A failure after the commit point is the request's final answer. */
  private failAfterCommit(message: AssistantMessage): void {
    this.settle();
    pushTerminalError(this.out, attachClassifiedError(message, classifyError(message, this.lastResponse)));
  }
}

/** A failed attempt: its final message and its classification (with the attempt's last response). */
export class AttemptFailure {
  readonly classified: ClassifiedError;

  constructor(
    readonly failure: AssistantMessage,
    response: ProviderResponse | undefined,
  ) {
    this.classified = classifyError(failure, response);
  }
}
