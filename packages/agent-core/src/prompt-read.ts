import { assertStringArgument, describeValue, errorText } from "@turnkit/agent-loop/internal";
import { TURN_DEFAULTS } from "./defaults.js";
import { ConfigErrorCode, TurnkitConfigError, TurnkitError } from "./errors.js";

/** Outcome of reading one key from a prompt snapshot. */
export type PromptReadResult<TValue = unknown> =
  /** The key is present and usable. */
  | { status: "found"; value: TValue }
  /** The snapshot has no value for the key. */
  | { status: "missing" }
  /** The key is present but unusable, or capturing or reading failed; `reason` says why. */
  | { status: "invalid"; reason: string };

/**
 * Where prompt material comes from (files, a settings store, ...), read in
 * two phases so that everything one model call reads is consistent:
 * `capture()` takes a snapshot, `read(snapshot, key)` looks a key up in it.
 *
 * `read` should be pure with respect to the snapshot: the same snapshot and
 * key always give the same result. It reports a present but unusable value
 * as `invalid` with a reason rather than throwing.
 */
export interface PromptSnapshotSource<TSnapshot, TValue = unknown> {
  /**
   * Takes a snapshot of the source. A {@link PromptReadScope} calls it at
   * most once; a throw or rejection makes every read of that scope
   * `invalid`, and the capture is not retried in the same scope.
   */
  capture(): TSnapshot | Promise<TSnapshot>;
  /**
   * Looks `key` up in `snapshot`: `found`, `missing`, or `invalid` with a
   * reason. Synchronous; it must not change the snapshot. A throw is turned
   * into `invalid` by the scope.
   */
  read(snapshot: TSnapshot, key: string): PromptReadResult<TValue>;
}

/** Stable codes of the registry's misuse errors (thrown as `TurnkitError`). */
export const PromptReadErrorCode = {
  /** The turn id is not in the registry. */
  UnknownTurn: "prompt_read_unknown_turn",
  /** The turn id is already reserved, or already has a scope. */
  DuplicateTurn: "prompt_read_duplicate_turn",
  /** The registry was closed. */
  Closed: "prompt_read_closed",
} as const;

/**
 * One snapshot for one model call. The first read (or `snapshot()`)
 * captures the source once; every later read in the scope, concurrent ones
 * included, uses that same snapshot, so a prompt assembled from several keys
 * never mixes two versions of the source. Make a new scope for the next call.
 */
export class PromptReadScope<TSnapshot, TValue = unknown> {
  private captured: Promise<TSnapshot> | undefined;

  constructor(private readonly source: PromptSnapshotSource<TSnapshot, TValue>) {}

  /** True once the snapshot was taken (or its capture started). */
  get hasSnapshot(): boolean {
    return this.captured !== undefined;
  }

  /**
   * The scope's snapshot, captured on first use. A failed capture is not
   * retried: the scope keeps reporting that failure, so reads stay consistent.
   */
  snapshot(): Promise<TSnapshot> {
    this.captured ??= Promise.resolve().then(() => this.source.capture());
    return this.captured;
  }

  /**
   * Reads `key` from the scope's snapshot. Never rejects: a failed capture
   * or a `read` that throws comes back as `invalid` with the reason.
   */
  async read(key: string): Promise<PromptReadResult<TValue>> {
    let snapshot: TSnapshot;
    try {
      snapshot = await this.snapshot();
    } catch (error) {
      return { status: "invalid", reason: `capturing the prompt snapshot failed: ${errorText(error)}` };
    }
    try {
      return this.source.read(snapshot, key);
    } catch (error) {
      return { status: "invalid", reason: `reading ${JSON.stringify(key)} failed: ${errorText(error)}` };
    }
  }
}

/** A registry slot: reserved for a turn, with its scope once remembered. */
interface Slot<TScope> {
  scope: TScope | undefined;
  /** A scope was remembered (`undefined` may be one): a second `remember` is misuse. */
  remembered: boolean;
}

/**
 * Holds the prompt-read scope of each internal turn between the moment the
 * turn is planned and the moment its model call takes the scope.
 *
 * Bounded: at most `capacity` turns (default 128) are held at once. A full
 * registry refuses `reserve` with `TurnkitConfigError` (`capacity_exceeded`);
 * it never evicts a reserved turn to make room, since that turn's call would
 * then silently read a different snapshot.
 *
 * Misuse is an error, never a silent no-op: reserving an id twice, touching
 * an unknown id, remembering a second scope, or any call after `close()`
 * throws a `TurnkitError` with a {@link PromptReadErrorCode}, and a turn id
 * that is no string a `TypeError` naming the argument. Two exceptions
 * keep cleanup paths simple: `discard` of an unknown id returns `false`, and
 * `close` may be called again.
 */
export class BoundedInternalTurnPromptReadRegistry<TScope = PromptReadScope<unknown>> {
  /** The most turns held at once; fixed at construction. */
  readonly capacity: number;
  private readonly slots = new Map<string, Slot<TScope>>();
  private closed = false;

  constructor(capacity: number = TURN_DEFAULTS.promptReadRegistryCapacity) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(
        `BoundedInternalTurnPromptReadRegistry: capacity must be a positive integer, got ${describeValue(capacity)}`,
      );
    }
    this.capacity = capacity;
  }

  /** Turns currently held (reserved, with or without a scope). */
  get size(): number {
    return this.slots.size;
  }

  /** True when `turnId` is held. */
  has(turnId: string): boolean {
    this.assertOpen("has", { turnId });
    return this.slots.has(turnId);
  }

  /**
   * Holds a slot for `turnId`, so its scope can be remembered later without
   * the risk of finding the registry full. Throws when the id is already held
   * or the registry is full.
   */
  reserve(turnId: string): void {
    this.assertOpen("reserve", { turnId });
    if (this.slots.has(turnId)) {
      throw new TurnkitError(
        PromptReadErrorCode.DuplicateTurn,
        `Prompt-read registry: turn ${JSON.stringify(turnId)} is already reserved`,
      );
    }
    if (this.slots.size >= this.capacity) {
      throw new TurnkitConfigError(
        ConfigErrorCode.CapacityExceeded,
        `Prompt-read registry is full: ${this.capacity} turns are reserved, so turn ${JSON.stringify(turnId)} cannot be. ` +
          "No reserved turn is evicted; take or discard finished turns (a leak usually means a turn ended without either).",
      );
    }
    this.slots.set(turnId, { scope: undefined, remembered: false });
  }

  /** Stores the scope of a reserved turn. Throws for an unreserved id or when a scope is already stored. */
  remember(turnId: string, scope: TScope): void {
    this.assertOpen("remember", { turnId });
    const slot = this.requireSlot(turnId, "remember");
    if (slot.remembered) {
      throw new TurnkitError(
        PromptReadErrorCode.DuplicateTurn,
        `Prompt-read registry: turn ${JSON.stringify(turnId)} already has a scope; take or discard it first`,
      );
    }
    slot.scope = scope;
    slot.remembered = true;
  }

  /**
   * Moves what `fromTurnId` holds (reservation and scope) to `toTurnId`, e.g.
   * when a retried call gets a new internal turn id. Throws when `from` is
   * unknown or `to` is already held; the count does not change.
   */
  rebind(fromTurnId: string, toTurnId: string): void {
    this.assertOpen("rebind", { fromTurnId, toTurnId });
    const slot = this.requireSlot(fromTurnId, "rebind");
    if (fromTurnId === toTurnId) return;
    if (this.slots.has(toTurnId)) {
      throw new TurnkitError(
        PromptReadErrorCode.DuplicateTurn,
        `Prompt-read registry: cannot rebind ${JSON.stringify(fromTurnId)} to ${JSON.stringify(toTurnId)}, which is already reserved`,
      );
    }
    this.slots.delete(fromTurnId);
    this.slots.set(toTurnId, slot);
  }

  /**
   * Removes `turnId` and returns its scope (`undefined` if it was reserved
   * but no scope was remembered). Throws for an unknown id.
   */
  take(turnId: string): TScope | undefined {
    this.assertOpen("take", { turnId });
    const slot = this.requireSlot(turnId, "take");
    this.slots.delete(turnId);
    return slot.scope;
  }

  /** Removes `turnId` and drops its scope; returns whether it was held. Safe to call in cleanup. */
  discard(turnId: string): boolean {
    this.assertOpen("discard", { turnId });
    return this.slots.delete(turnId);
  }

  /** Drops every turn; afterwards every method except `close` throws. */
  close(): void {
    this.closed = true;
    this.slots.clear();
  }

  private requireSlot(turnId: string, operation: string): Slot<TScope> {
    const slot = this.slots.get(turnId);
    if (!slot) {
      throw new TurnkitError(
        PromptReadErrorCode.UnknownTurn,
        `Prompt-read registry: cannot ${operation} turn ${JSON.stringify(turnId)}; it was never reserved, or was already taken or discarded`,
      );
    }
    return slot;
  }

  /** Throws once closed, and a `TypeError` naming the argument for a turn id that is no string. */
  private assertOpen(operation: string, ids: Record<string, unknown>): void {
    if (this.closed) {
      throw new TurnkitError(PromptReadErrorCode.Closed, `Prompt-read registry: cannot ${operation} after close()`);
    }
    for (const [name, id] of Object.entries(ids))
      assertStringArgument(id, `BoundedInternalTurnPromptReadRegistry.${operation}`, name);
  }
}
