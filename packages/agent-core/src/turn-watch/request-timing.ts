import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { ModelRequestTiming } from "@turnkit/protocol";
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

  constructor(
    private readonly now: () => number,
    readonly startedAt: number,
    private readonly onEnd: (attempt: AttemptTimes) => void,
  ) {}

  /** Records one stream event of the attempt. Never throws. */
  observe(event: AssistantMessageEvent): void {
    if (this.firstEventAt === undefined) this.firstEventAt = this.now();
    switch (event.type) {
      case "text_delta":
        if (this.firstOutputAt === undefined && event.delta !== "") this.firstOutputAt = this.now();
        return;
      case "thinking_start":
        if (this.thinkingStartAt === undefined) this.thinkingStartAt = this.now();
        return;
      case "thinking_delta":
        if (this.firstOutputAt === undefined && event.delta !== "") this.firstOutputAt = this.now();
        return;
      case "thinking_end":
        this.thinkingEndAt = this.now();
        return;
      case "toolcall_start":
        if (this.firstOutputAt === undefined) this.firstOutputAt = this.now();
        return;
      case "done":
        this.end(event.message);
        return;
      case "error":
        this.end(event.error);
        return;
      default:
        return;
    }
  }

  private end(message: AssistantMessage): void {
    if (this.endedAt !== undefined) return;
    this.endedAt = this.now();
    this.final = message;
    this.onEnd(this);
  }
}

/** A duration in ms, to the microsecond (a system clock's floats carry noise beyond that). */
export function millis(value: number): number {
  return Math.round(Math.max(0, value) * 1000) / 1000;
}

/** One request of the loop or of a hook, with every attempt it took and the backoff between them. */
export class ModelRequestRecord {
  readonly attempts: AttemptTimes[] = [];
  backoffMs = 0;
  /** Closed: no attempt joins it any more. */
  closed = false;

  constructor(
    readonly family: RequestFamily,
    readonly startedAt: number,
  ) {}

  /** The attempt that decided the request: the last one. */
  get last(): AttemptTimes | undefined {
    return this.attempts[this.attempts.length - 1];
  }

  /** The request's timing as the protocol reports it; `now` ends a request whose last attempt never ended. */
  timing(now: number): ModelRequestTiming {
    const last = this.last;
    const endedAt = last?.endedAt ?? now;
    const timing: ModelRequestTiming = {
      family: this.family,
      attempts: this.attempts.length,
      backoffMs: millis(this.backoffMs),
      durationMs: millis(endedAt - this.startedAt),
    };
    if (!last) return timing;
    if (last.firstEventAt !== undefined) timing.firstEventMs = millis(last.firstEventAt - last.startedAt);
    if (last.firstOutputAt !== undefined) {
      timing.firstOutputMs = millis(last.firstOutputAt - last.startedAt);
      timing.decodeMs = millis(endedAt - last.firstOutputAt);
    }
    if (last.thinkingStartAt !== undefined) timing.thinkingMs = millis((last.thinkingEndAt ?? endedAt) - last.thinkingStartAt);
    const output = last.final?.usage?.output;
    if (typeof output === "number" && output > 0 && timing.decodeMs !== undefined && timing.decodeMs > 0) {
      timing.outputTokensPerSecond = Math.round((output / timing.decodeMs) * 100_000) / 100;
    }
    return timing;
  }
}
