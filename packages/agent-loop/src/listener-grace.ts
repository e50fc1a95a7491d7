import { ABANDONED, settleOrAbandon } from "./abort-grace.js";
import { ABORT_GRACE_MS } from "./defaults.js";

/** Waits that started before the abort, and, once it came, the one timer that gives up on them. */
interface WaitGroup {
  readonly resolvers: Set<(value: typeof ABANDONED) => void>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The abort grace of one Agent run's listener results, without a listener
 * on the run's signal: the Agent owns that signal and tells the grace when
 * it aborts it ({@link ListenerGrace.aborted}). A result awaited before the
 * abort is given up on `ABORT_GRACE_MS` after the abort (one timer for all
 * of them, cleared as soon as they have all settled); one awaited after the
 * abort gets `ABORT_GRACE_MS` from the start of its wait, as
 * {@link settleOrAbandon} gives it.
 */
export class ListenerGrace {
  /** The waits pending since the last abort; created by the first one (most runs await no listener). */
  private group: WaitGroup | undefined;

  constructor(private readonly signal: AbortSignal) {}

  /**
   * Waits for `work`; once the run is aborted, at most the grace. A
   * rejection of work given up on is handled (never unhandled).
   */
  wait<T>(work: PromiseLike<T>): Promise<T | typeof ABANDONED> {
    if (this.signal.aborted) return settleOrAbandon(Promise.resolve(work), this.signal, ABORT_GRACE_MS);
    const group = (this.group ??= { resolvers: new Set(), timer: undefined });
    return new Promise<T | typeof ABANDONED>((resolve, reject) => {
      group.resolvers.add(resolve);
      const settle = () => {
        group.resolvers.delete(resolve);
        if (group.timer !== undefined && group.resolvers.size === 0) clearTimeout(group.timer);
      };
      work.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }

  /** The Agent aborted the run: the waits pending now get `ABORT_GRACE_MS` more. */
  aborted(): void {
    const group = this.group;
    if (!group || group.resolvers.size === 0) return;
    this.group = undefined;
    group.timer = setTimeout(() => {
      for (const resolve of group.resolvers) resolve(ABANDONED);
    }, ABORT_GRACE_MS);
    group.timer.unref?.();
  }
}
