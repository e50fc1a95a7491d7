import type { TurnContext } from "./turn-context.js";

/**
 * Which tools of each extension its assembled turns kept after name
 * clashes: per turn (keyed by the frozen `ctx` the runtime hands that
 * turn's factories and hooks) and the latest per extension. It is what
 * `api.keptTools(ctx)` reads, so an extension can tell whether a name a
 * hook sees is its own tool or another's that kept the name. The assembly
 * records each turn; `toRunTurnInput` takes out what a host tool displaced.
 * One per registry; a turn's entry goes with its `ctx` (weakly held).
 */
export class KeptTools {
  readonly #byTurn = new WeakMap<TurnContext, Map<string, ReadonlySet<string>>>();
  readonly #latest = new Map<string, ReadonlySet<string>>();

  /** Records the tools extension `extensionId` has in the turn assembled with `ctx`. */
  record(ctx: TurnContext, extensionId: string, names: readonly string[]): void {
    const kept: ReadonlySet<string> = new Set(names);
    let turn = this.#byTurn.get(ctx);
    if (turn === undefined) {
      turn = new Map();
      this.#byTurn.set(ctx, turn);
    }
    turn.set(extensionId, kept);
    this.#latest.set(extensionId, kept);
  }

  /**
   * Takes `name` out of the tools extension `extensionId` has in the turn
   * assembled with `ctx` (a host tool keeps the name); also out of its
   * latest when that is this turn's. Does nothing for a turn not recorded.
   */
  leaveOut(ctx: TurnContext, extensionId: string, name: string): void {
    const turn = this.#byTurn.get(ctx);
    const kept = turn?.get(extensionId);
    if (turn === undefined || kept === undefined || !kept.has(name)) return;
    const rest: ReadonlySet<string> = new Set([...kept].filter((other) => other !== name));
    turn.set(extensionId, rest);
    if (this.#latest.get(extensionId) === kept) this.#latest.set(extensionId, rest);
  }

  /**
   * The tools extension `extensionId` has in the turn assembled with `ctx`
   * or, without `ctx`, in its latest assembled turn; `undefined` when there
   * is no such assembly.
   */
  of(extensionId: string, ctx?: TurnContext): ReadonlySet<string> | undefined {
    return ctx === undefined ? this.#latest.get(extensionId) : this.#byTurn.get(ctx)?.get(extensionId);
  }
}
