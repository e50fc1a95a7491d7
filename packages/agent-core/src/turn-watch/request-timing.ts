import type { AssistantMessage, AssistantMessageEvent, Model } from "@mariozechner/pi-ai";
import type { ModelRequestTiming } from "@turnkit/protocol";
import type { Clock } from "../clock.js";
import type { RequestSpan } from "./turn-tracing.js";
import type { RequestFamily } from "./usage-ledger.js";

/**
 * What one provider attempt's stream did and when, on the turn's clock.
 * Fed every event of the attempt (`observe`), so it does as little as
 * possible per event: the clock is read only at the moments it records.
 */
export class AttemptTimes {
  firstEventAt: number | undefined;
  firstOutputAt: number | undefined;
  thinkingStartAt: number | undefined;
  thinkingEndAt: number | undefined;
  endedAt: number | undefined;
  /** The attempt's final message (`done` or `error`), once it ended. */
  final: AssistantMessage | undefined;
  /** 1 for a request's first attempt, 2 for its first retry, and so on. */
  readonly number: number;

  constructor(
    private readonly clock: Clock,
    readonly startedAt: number,
    /** The same request's attempt before this one. */
    readonly previous: AttemptTimes | undefined,
  ) {
    this.number = previous ? previous.number + 1 : 1;
  }

  /** Records one stream event of the attempt; true when this event ended it (`final` and `endedAt` are then set). Never throws. */
  observe(event: AssistantMessageEvent): boolean {
    if (this.firstEventAt === undefined) this.firstEventAt = this.clock.now();
    switch (event.type) {
      case "text_delta":
        if (this.firstOutputAt === undefined && event.delta !== "") this.firstOutputAt = this.clock.now();
        return false;
      case "thinking_start":
        if (this.thinkingStartAt === undefined) this.thinkingStartAt = this.clock.now();
        return false;
      case "thinking_delta":
        if (this.firstOutputAt === undefined && event.delta !== "") this.firstOutputAt = this.clock.now();
        return false;
      case "thinking_end":
        this.thinkingEndAt = this.clock.now();
        return false;
      case "toolcall_start":
        if (this.firstOutputAt === undefined) this.firstOutputAt = this.clock.now();
        return false;
      case "done":
        return this.end(event.message);
      case "error":
        return this.end(event.error);
      default:
        return false;
    }
  }

  private end(message: AssistantMessage): boolean {
    if (this.endedAt !== undefined) return false;
    this.endedAt = this.clock.now();
    this.final = message;
    return true;
  }
}

/** A duration in ms, to the microsecond (a system clock's floats carry noise beyond that). */
export function millis(value: number): number {
  return Math.round(Math.max(0, value) * 1000) / 1000;
}

/** One request of the loop or of a hook, with every attempt it took and the backoff between them. */
export class ModelRequestRecord {
  /**
   * The attempt that decides the request: its latest. Each attempt links to
   * the one before, so a request (most take one attempt, and a turn keeps
   * every request for its report) holds no list of them.
   */
  last: AttemptTimes | undefined = undefined;
  backoffMs = 0;
  /** Its `chat` span while it is open, when the turn is traced. */
  span: RequestSpan | undefined = undefined;
  /** Every model the request was sent to (`provider/id`), once it fell back to another; else undefined. */
  private models: string[] | undefined = undefined;
  /** The model of its latest attempt. */
  private model: Model<any> | undefined = undefined;

  constructor(
    readonly family: RequestFamily,
    readonly startedAt: number,
    /** The turn's request before this one, of either family. */
    readonly previous: ModelRequestRecord | undefined = undefined,
  ) {}

  /** A new attempt of the request to `model`, started at `startedAt`; it becomes the request's latest. */
  addAttempt(clock: Clock, startedAt: number, model: Model<any>): AttemptTimes {
    if (this.model !== undefined && model !== this.model) {
      this.models ??= [modelName(this.model)];
      this.models.push(modelName(model));
    }
    this.model = model;
    this.last = new AttemptTimes(clock, startedAt, this.last);
    return this.last;
  }

  /** The request's timing as the protocol reports it; `now` ends a request whose last attempt never ended. */
  timing(now: number): ModelRequestTiming {
    const last = this.last;
    const endedAt = last?.endedAt ?? now;
    const timing: ModelRequestTiming = {
      family: this.family,
      attempts: last ? last.number : 0,
      backoffMs: millis(this.backoffMs),
      durationMs: millis(endedAt - this.startedAt),
    };
    if (this.models) timing.models = [...this.models];
    if (!last) return timing;
    if (last.firstEventAt !== undefined) timing.firstEventMs = millis(last.firstEventAt - last.startedAt);
    if (last.firstOutputAt !== undefined) {
      timing.firstOutputMs = millis(last.firstOutputAt - last.startedAt);
      timing.decodeMs = millis(endedAt - last.firstOutputAt);
    }
    if (last.thinkingStartAt !== undefined)
      timing.thinkingMs = millis((last.thinkingEndAt ?? endedAt) - last.thinkingStartAt);
    const output = last.final?.usage?.output;
    if (typeof output === "number" && output > 0 && timing.decodeMs !== undefined && timing.decodeMs > 0) {
      timing.outputTokensPerSecond = Math.round((output / timing.decodeMs) * 100_000) / 100;
    }
    return timing;
  }
}

/** A model as reports name it: `provider/id`. */
export function modelName(model: Model<any>): string {
  return `${model.provider}/${model.id}`;
}
