import type { EventOrigin, RuntimeEvent } from "@turnkit/protocol";

/**
 * Where a resumed execution found events of an interrupted step of one
 * lane (a parallel sub-agent call), which the log interleaves with the
 * other lanes' events: the lane's events from `fromSeq` to `toSeq` are
 * superseded, the others' in that range are not.
 */
export interface LaneResumeRecord {
  /** The lane's tool call id. */
  callId: string;
  fromSeq: number;
  toSeq: number;
  /** The highest `origin.seq` each sub-agent turn of the lane had among them: its numbering continues after it. */
  childSeqs: Record<string, number>;
  /** `durable.resume` notices of the lane among them: executions that resumed the lane before and died. */
  earlierResumes?: number;
}

/**
 * What identifies an event in the log of a batch of parallel calls,
 * whatever the order the lanes' timing gave it: an event of a sub-agent
 * turn by its place in that turn's own sequence; the turn's own by the
 * message chunk (`messageId`, `chunkIndex`: a call's status), the request
 * it asks or closes. `undefined` for anything else.
 */
export function replayKey(event: RuntimeEvent): string | undefined {
  if (event.origin) return `${event.origin.turnId}#${event.origin.seq}`;
  switch (event.type) {
    case "stream.resp":
      return `${event.payload.messageId}@${event.payload.chunkIndex}`;
    case "action.required":
      return `asked ${event.payload.requestId}`;
    case "debug.trace": {
      const requestId = event.payload.attrs?.requestId;
      return requestId === undefined ? undefined : `${event.payload.phase} ${String(requestId)}`;
    }
    default:
      return undefined;
  }
}

/**
 * What the log held beyond the writer's position when an execution
 * replays a batch of parallel sub-agent calls: their events, which the log
 * interleaves by the timing of the execution that logged them. A replay
 * knows each by its {@link replayKey}, which does not depend on timing.
 */
export class ParallelReplay {
  /** The seq of each logged event, by its key. */
  private readonly keys = new Map<string, number>();
  /** The logged events of sub-agent turns. */
  private readonly children: { seq: number; origin: EventOrigin; resume: boolean }[] = [];
  /** The seq of the next event the log does not hold yet: after everything it held. */
  private freshSeq: number;
  /** True once an event was given a fresh seq. */
  private wroteFresh = false;
  /** The highest seq of a logged event this replay came to. */
  private lastMatched = 0;

  constructor(
    /** The events the log held beyond the writer's position, in seq order. */
    logged: readonly RuntimeEvent[],
    /** The log's highest seq. */
    storedSeq: number,
  ) {
    this.freshSeq = storedSeq + 1;
    for (const event of logged) {
      const key = replayKey(event);
      if (key !== undefined) this.keys.set(key, event.seq);
      if (event.origin)
        this.children.push({
          seq: event.seq,
          origin: event.origin,
          resume: event.type === "debug.trace" && event.payload.phase === "durable.resume",
        });
    }
  }

  /** The seq of `event` (its origin numbered already): `undefined` when the log holds it. */
  seqOf(event: RuntimeEvent): number | undefined {
    const key = replayKey(event);
    const logged = key === undefined ? undefined : this.keys.get(key);
    if (logged !== undefined) {
      this.lastMatched = Math.max(this.lastMatched, logged);
      return undefined;
    }
    this.wroteFresh = true;
    return this.freshSeq++;
  }

  /**
   * Where the turn's own events go on once the batch has ended: after the
   * last event this execution added, or else after the last logged event
   * it came to (the turn's events after it, an earlier execution logged,
   * keep their seqs), and never before `nextSeq`.
   */
  seqAfter(nextSeq: number): number {
    return this.wroteFresh ? this.freshSeq : Math.max(nextSeq, this.lastMatched + 1);
  }

  /**
   * The events of the lane `callId` the log holds beyond `childSeq` of
   * their sub-agent turn (what this execution passed on of it): an
   * interrupted step of the lane logged them.
   */
  laneResume(callId: string, childSeq: (turnId: string) => number): LaneResumeRecord | undefined {
    const superseded = this.children.filter(
      ({ origin }) => origin.toolCallId === callId && origin.seq > childSeq(origin.turnId),
    );
    if (superseded.length === 0) return undefined;
    const childSeqs: Record<string, number> = {};
    for (const { origin } of superseded) childSeqs[origin.turnId] = Math.max(childSeqs[origin.turnId] ?? 0, origin.seq);
    const resumes = superseded.filter((event) => event.resume).length;
    return {
      callId,
      fromSeq: superseded[0]!.seq,
      toSeq: superseded[superseded.length - 1]!.seq,
      childSeqs,
      ...(resumes > 0 && { earlierResumes: resumes }),
    };
  }
}
