/** A shallow copy of `options` (`{ ...options }`) that a layer may write its own fields into; never mutates `options`. */
export function copyOptions<T extends object>(options: T): T {
  return { ...options };
}
