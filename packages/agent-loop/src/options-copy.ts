/**
 * A shallow copy of `options` (own enumerable properties, like
 * `{ ...options }`) that a layer may then write its own fields into. Built
 * with `Object.assign` onto a fresh object, so copies made at one call site
 * share one hidden class in V8; a spread of an object with many fields gives
 * every copy a hidden class of its own (a map allocated per copy and slow
 * reads of it afterwards), which costs microseconds per model request. An
 * own `__proto__` key (a JSON-parsed object), which `Object.assign` would
 * turn into the copy's prototype, is spread instead and stays a property.
 * Never mutates `options`.
 */
export function copyOptions<T extends object>(options: T): T {
  return Object.hasOwn(options, "__proto__") ? { ...options } : Object.assign({}, options);
}
