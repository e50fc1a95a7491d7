/**
 * Calls `visit` with each entry `list` has, in index order: every index up
 * to the first hole, then only the indices that exist. A list with a length
 * of 2^32 - 1 and a few entries (`list.length = n` with a garbage `n`) is
 * walked at once, where `map` and `for...of` visit every index (minutes of
 * CPU, or a crash of the process once a copy outgrows what the engine
 * allows).
 */
export function forEachListEntry<I>(list: readonly I[], visit: (item: I, index: number) => void): void {
  const { length } = list;
  for (let index = 0; index < length; index++) {
    if (!(index in list)) {
      for (const key of Object.keys(list)) {
        const at = Number(key);
        if (Number.isInteger(at) && at > index && at < length) visit(list[at]!, at);
      }
      return;
    }
    visit(list[index]!, index);
  }
}

/** A copy of `list` of the same length, `copy` applied to each entry it has (see {@link forEachListEntry}); holes stay holes. */
export function copyListEntries<I, T>(list: readonly I[], copy: (item: I) => T): T[] {
  const copied: T[] = new Array(list.length);
  forEachListEntry(list, (item, index) => {
    copied[index] = copy(item);
  });
  return copied;
}
