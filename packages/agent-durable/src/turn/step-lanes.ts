/**
 * One call of a parallel batch of the turn (a lane): a sub-agent call, whose
 * child turn makes many steps, or a tool call, which makes one.
 */
export interface Lane {
  /** The turn's tool call id. */
  readonly callId: string;
  /**
   * True once this lane's own records hold the turn's abort: its seams
   * answer at once, without a step. A lane's own (not the turn's), so what
   * it does next depends on its records alone, never on when a sibling
   * learned of the abort.
   */
  stopped: boolean;
  /** Resumes after an interrupted step of this lane: part of the message ids of its re-sent requests. */
  resumes: number;
  /** Steps waiting for the lane's turn, in the order the lane asked for them. */
  readonly pendingSteps: (() => void)[];
  /** Resolves when the lane's call has returned. */
  readonly finished: Promise<void>;
  readonly finish: () => void;
}

/**
 * Orders the steps of a turn's parallel calls so that every execution
 * calls them in the same order, however long each takes.
 *
 * DBOS numbers a workflow's steps in the order they are called, and a
 * replay must call them in that order. Two sub-agent calls running at
 * once call their steps in an order that depends on timing; each lane's
 * own sequence of steps, though, is fixed by its records. So the lanes
 * take turns, round-robin in the model's call order: the first step of
 * lane 1, of lane 2, ..., then the second step of lane 1, and so on, a
 * lane that has finished dropping out. A step starts as soon as it is
 * its lane's turn (it does not wait for earlier steps to end), so the
 * lanes run at the same time; a lane is at most one step ahead of one
 * that is still in the middle of a step (a long tool call, an approval
 * that waits for a person).
 *
 * The lanes of a batch are added when the runner admits each call
 * ({@link add}, in the model's order, before any call of the batch runs),
 * so the rotation is complete before the first step; a tool call of the
 * batch that is not a sub-agent is a lane with one step.
 */
export class StepLanes {
  /** The lanes running, in the model's order. */
  private readonly lanes: Lane[] = [];
  /** The index in {@link lanes} of the lane whose step starts next. */
  private next = 0;
  /** Whether the batch's first sub-agent call read what the log holds of the batch (see `addLane`). */
  logRead = false;

  constructor(
    /** Called when the last lane of a batch has finished. */
    private readonly onIdle: () => void,
  ) {}

  /** True while a batch of parallel calls runs. */
  get active(): boolean {
    return this.lanes.length > 0;
  }

  /** Adds the call `callId`, just admitted, as the last lane; `stopped`: the turn's abort is recorded already. */
  add(callId: string, stopped: boolean): Lane {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const lane: Lane = { callId, stopped, resumes: 0, pendingSteps: [], finished, finish };
    this.lanes.push(lane);
    return lane;
  }

  /** The lane of the turn's call `callId` while it runs. */
  of(callId: string): Lane | undefined {
    return this.lanes.find((lane) => lane.callId === callId);
  }

  /**
   * Calls `start` when it is `lane`'s turn (at once without a lane).
   * `start` must call its DBOS step before its first `await`: DBOS takes
   * the step's number then, and the next lane's turn begins.
   */
  step<T>(lane: Lane | undefined, start: () => Promise<T>): Promise<T> {
    if (lane === undefined) return start();
    return new Promise<T>((resolve, reject) => {
      lane.pendingSteps.push(() => void start().then(resolve, reject));
      this.startDue();
    });
  }

  /** The lane's call has returned: it leaves the rotation. */
  finish(lane: Lane): void {
    const index = this.lanes.indexOf(lane);
    if (index < 0) return;
    this.lanes.splice(index, 1);
    if (index < this.next) this.next--;
    lane.finish();
    if (this.lanes.length === 0) {
      this.next = 0;
      this.logRead = false;
      this.onIdle();
      return;
    }
    this.startDue();
  }

  /** Starts steps while the lane whose turn it is has one waiting. */
  private startDue(): void {
    for (;;) {
      if (this.next >= this.lanes.length) this.next = 0;
      const start = this.lanes[this.next]?.pendingSteps.shift();
      if (start === undefined) return;
      start();
      this.next++;
    }
  }
}
