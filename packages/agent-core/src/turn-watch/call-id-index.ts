/** Places a new index has: room for a quarter of them, so it is made once for a turn's first few dozen calls. */
const FIRST_PLACES = 128;

/**
 * Finds the slot of a tool call by its id among the thousands a long turn
 * makes, for `ToolCallTimer`. The ids stay in the timer's list; the index
 * holds, per place, a slot (plus one; 0: free) and the hash of its id, in
 * one `Int32Array`, at the place a hash of the id picks (the next free one
 * when taken). A `Map` of the ids did the same as a table of pointers the
 * garbage collector reads at each collection, and each lookup there read
 * id strings scattered over the heap; here an id is read only when its
 * hash matches. At most half the places are taken, so a lookup of an id
 * never added stops at a free place within a few steps. The hash is
 * seeded per index, so ids chosen to collide do not collide in every turn.
 */
export class CallIdIndex {
  /** Two numbers per place: slot + 1 (0: free), then the id's hash. */
  private places = new Int32Array(2 * FIRST_PLACES);
  private size = 0;
  private readonly seed = (Math.random() * 0x7fffffff) | 0;

  /** The slot of `id`, whose id is `ids[slot]`; `undefined` when it was never added. */
  find(id: string, ids: readonly string[]): number | undefined {
    const places = this.places;
    const mask = places.length / 2 - 1;
    const hash = this.hashOf(id);
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = places[2 * at]!;
      if (entry === 0) return undefined;
      if (places[2 * at + 1] === hash && ids[entry - 1] === id) return entry - 1;
    }
  }

  /** Adds `slot`, whose id `ids[slot]` was never added. */
  add(slot: number, ids: readonly string[]): void {
    if (2 * (this.size + 1) > this.places.length / 2) this.grow();
    this.place(slot, this.hashOf(ids[slot]!));
    this.size++;
  }

  /** Twice the places, every slot placed again. */
  private grow(): void {
    const old = this.places;
    this.places = new Int32Array(2 * old.length);
    for (let at = 0; at < old.length; at += 2) if (old[at] !== 0) this.place(old[at]! - 1, old[at + 1]!);
  }

  private place(slot: number, hash: number): void {
    const places = this.places;
    const mask = places.length / 2 - 1;
    let at = hash & mask;
    while (places[2 * at] !== 0) at = (at + 1) & mask;
    places[2 * at] = slot + 1;
    places[2 * at + 1] = hash;
  }

  /** FNV-1a over the id's UTF-16 code units, started from the index's seed. */
  private hashOf(id: string): number {
    let hash = 0x811c9dc5 ^ this.seed;
    for (let index = 0; index < id.length; index++) hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
    return hash;
  }
}
