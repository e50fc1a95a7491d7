import type { AssistantMessage, AssistantMessageEvent, Context, ProviderResponse } from "@mariozechner/pi-ai";
import { attachClassifiedError, classifyError, type ClassifiedError } from "./classify-error.js";
import { LinkedAbortController } from "./linked-abort.js";
import type { EventSink } from "./event-sink.js";
import type { LlmRetryNotification } from "./llm-config.js";
import type { OptionFill } from "./option-fill.js";
import { pipeEvents, type RelayStream } from "./relay-stream.js";
import { STREAM_ENDED_WITHOUT_FINAL_EVENT } from "./stream-errors.js";
import {
  copyStreamOptions,
  createFailureMessage,
  errorText,
  invokeStreamFn,
  pushTerminalError,
  type AnyModel,
  type StreamFn,
  type StreamFnOptions,
} from "./stream-fn.js";

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

/** What the attempts of one retry layer share. */
export interface AttemptLayer {
  readonly streamFn: StreamFn;
  /** Names the request family in notices. */
  readonly label: string;
  readonly notify: (notification: LlmRetryNotification) => void;
  /** Fills the option layers' options into each attempt's copy, when the layer has them. */
  readonly fillOptions: OptionFill | undefined;
}

/** The request an attempt belongs to: the stream function's arguments, and the stream its events go to. */
export interface AttemptRequest {
  readonly layer: AttemptLayer;
  readonly out: RelayStream;
  readonly model: AnyModel;
  /** What each attempt sends; `undefined` once the request ended ({@link ended}), when no attempt starts any more. */
  readonly context: Context | undefined;
  readonly callOptions: StreamFnOptions | undefined;
  /** The caller's signal (`callOptions.signal`). */
  readonly caller: AbortSignal | undefined;
  /** The request's stream ended (its last event was pushed): it lets go of what only sending needed. */
  ended(): void;
}

/** Told how an attempt ended before or at its commit point; at most one of the two, once. */
export interface AttemptOutcome {
  /** The attempt reached its commit point: from now on it is the answer. */
  committed(): void;
  /** The attempt failed before its commit point; it was aborted through its own signal. */
  failed(failure: AttemptFailure): void;
}

/**
 * One attempt of a request: sent with `maxRetries: 0`, its own signal
 * (linked to the caller's) and an `onResponse` that calls
 * the caller's own observer first (its result, a promise included, is what
 * the stream function awaits) and then remembers the response, also when
 * the caller's observer throws; the layer's option fill, when it has one,
 * fills the option layers' options into that copy. Its events are buffered
 * until the commit point, then passed to the request's stream; `outcome` is
 * told of the commit, or of an {@link AttemptFailure} before it. It is the
 * sink of the attempt's stream: once settled, reading stops and no event
 * reaches it.
 */
export class RetryAttempt implements EventSink {
  private readonly link: LinkedAbortController;
  /** The attempt's latest response (status and headers). */
  private lastResponse: ProviderResponse | undefined;
  /** Events held back until the commit point; `undefined` once committed. */
  private buffer: AssistantMessageEvent[] | undefined = [];
  private settled = false;
  private stop: (() => void) | undefined;

  constructor(
    private readonly request: AttemptRequest,
    private readonly attempt: number,
    private readonly outcome: AttemptOutcome,
  ) {
    this.link = new LinkedAbortController(request.caller);
  }

  start(): void {
    const { request } = this;
    const { callOptions, model } = request;
    const callerObserver = callOptions?.onResponse;
    const options = copyStreamOptions(callOptions);
    options.maxRetries = 0;
    options.signal = this.link.signal;
    options.onResponse = (response, responseModel) => {
      try {
        return callerObserver?.(response, responseModel);
      } finally {
        this.lastResponse = { status: response.status, headers: { ...response.headers } };
      }
    };
    request.layer.fillOptions?.(options, model);
    this.stop = pipeEvents(invokeStreamFn(request.layer.streamFn, model, request.context!, options), this);
    if (this.settled) this.stop();
  }

  event(event: AssistantMessageEvent): void {
    if (this.settled) return;
    const { buffer } = this;
    const { out } = this.request;
    if (buffer === undefined) {
      if (event.type === "error") return this.finishCommitted(event.error);
      out.push(event);
      if (event.type === "done") {
        this.settle();
        this.releaseFinished();
        out.end();
      }
      return;
    }
    if (event.type === "error") return this.abandon(event.error);
    buffer.push(event);
    if (event.type === "done") {
      this.settle();
      this.commit();
      this.releaseFinished();
      out.end();
      return;
    }
    if (isVisibleOutputEvent(event)) this.commit();
  }

  end(): void {
    if (this.settled) return;
    this.endOrFail(createFailureMessage(this.request.model, "error", STREAM_ENDED_WITHOUT_FINAL_EVENT));
  }

  fail(error: unknown): void {
    if (this.settled) return;
    const { model, caller } = this.request;
    this.endOrFail(createFailureMessage(model, caller?.aborted ? "aborted" : "error", errorText(error)));
  }

  /** Stops reading the attempt's stream; no event reaches the sink any more. */
  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.stop?.();
  }

  /** The request finished: its signal stops following the caller. */
  private releaseFinished(): void {
    this.link.release();
    this.request.ended();
  }

  private abandon(failure: AssistantMessage): void {
    this.settle();
    this.link.abort();
    this.link.release();
    this.outcome.failed(new AttemptFailure(failure, this.lastResponse));
  }

  private commit(): void {
    const { out, layer } = this.request;
    if (this.attempt > 1) layer.notify({ type: "recovered", label: layer.label, attempt: this.attempt });
    for (const buffered of this.buffer ?? []) out.push(buffered);
    this.buffer = undefined;
    this.outcome.committed();
  }

  private finishCommitted(message: AssistantMessage): void {
    this.settle();
    this.link.release();
    pushTerminalError(this.request.out, attachClassifiedError(message, classifyError(message, this.lastResponse)));
    this.request.ended();
  }

  private endOrFail(failure: AssistantMessage): void {
    if (this.buffer === undefined) this.finishCommitted(failure);
    else this.abandon(failure);
  }
}

/** A failed attempt as p-retry sees it: the attempt's final message and its classification (with the attempt's last response). */
export class AttemptFailure extends Error {
  readonly failure: AssistantMessage;
  readonly classified: ClassifiedError;

  constructor(failure: AssistantMessage, response: ProviderResponse | undefined) {
    const classified = classifyError(failure, response);
    super(classified.message);
    this.name = "AttemptFailure";
    this.failure = failure;
    this.classified = classified;
  }
}
