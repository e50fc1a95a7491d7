import type { AgentMessage } from "@turnkit/agent-loop";

/**
 * A copy of `value` for host code to hold: what a hook, a host callback or
 * the event writer is handed, and what a hook hands over to become part of
 * the turn. Arrays and plain objects are copied down to 256 levels, with
 * every own field (a non-enumerable one, such as a failed message's
 * classification, stays non-enumerable); anything else (a class instance,
 * a function, a typed array, a proxy that cannot be read, what lies
 * deeper) is shared, and a value met twice (a cycle) is copied once.
 * Never throws: a field whose read throws is `undefined` in the copy.
 *
 * Why: the messages of a turn are its transcript. A hook that changes what
 * it was handed (empties a message's content, renames a role) would
 * otherwise change the transcript behind the turn's back, and the turn
 * would fail later with an engine error far from the hook. With a copy,
 * only a hook's decision changes the turn.
 */
export function copyForHost<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  return copyValue(value, new Map(), 0, false) as T;
}

/**
 * {@link copyForHost} for what host code hands over to become part of the
 * turn (a hook's decision, a steering answer, a tool result's patch): the
 * same copy, except that a value that cannot be read (a proxy whose traps
 * throw, a revoked one) throws, so the caller fails that host code by its
 * kind's rule, naming it, instead of taking in a value that fails the turn
 * later. Within a `details` field (the host's own data, which the turn
 * carries but never reads, and which may hold what the turn handed out)
 * such a value is shared, as {@link copyForHost} shares it.
 */
export function copyFromHost<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  return copyValue(value, new Map(), 0, true) as T;
}

/** How deep {@link copyForHost} copies; what lies deeper is shared, as a class instance is. */
const HOST_COPY_MAX_DEPTH = 256;

/**
 * The request's messages as a before-LLM hook is shown them: a list of its
 * own holding a copy of each message, made once per message and turn
 * (`copies`), so a long turn copies each message once rather than its
 * whole history at every request. A hook that edits a copy changes
 * nothing of the turn; it (and the hooks after it) may see its own edit
 * again at a later request, as it would in a store of its own.
 */
export function requestMessagesForHost(
  messages: readonly AgentMessage[],
  copies: WeakMap<AgentMessage, AgentMessage>,
): AgentMessage[] {
  return messages.map((message) => {
    if (typeof message !== "object" || message === null) return message;
    let copy = copies.get(message);
    if (!copy) {
      copy = copyForHost(message);
      copies.set(message, copy);
    }
    return copy;
  });
}

function copyValue(value: unknown, seen: Map<object, unknown>, depth: number, strict: boolean): unknown {
  if (typeof value !== "object" || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (depth >= HOST_COPY_MAX_DEPTH) return value;
  try {
    return copyObject(value, seen, depth, strict);
  } catch (error) {
    if (strict) throw error;
    // A revoked proxy, or one whose keys or prototype cannot be read: shared as it is, as a class instance is.
    seen.set(value, value);
    return value;
  }
}

function copyObject(value: object, seen: Map<object, unknown>, depth: number, strict: boolean): unknown {
  if (Array.isArray(value)) {
    const list: unknown[] = new Array(value.length);
    seen.set(value, list);
    for (let index = 0; index < value.length; index++) {
      // From the first hole on, by the entries there are: a list with a length of 2^32 - 1 and a few entries is copied at once.
      if (!(index in value)) return copyRestOfSparseList(value, list, index, seen, depth, strict);
      list[index] = copyValue(readField(value, index), seen, depth + 1, strict);
    }
    return list;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const fields: Record<PropertyKey, unknown> = prototype === null ? Object.create(null) : {};
  seen.set(value, fields);
  for (const key of Object.getOwnPropertyNames(value)) {
    // A message's `details` is the host's own data, which the turn carries but never reads: shared where unreadable.
    const field = copyValue(readField(value, key), seen, depth + 1, strict && key !== "details");
    const enumerable = Object.prototype.propertyIsEnumerable.call(value, key);
    if (enumerable && key !== "__proto__") fields[key] = field;
    else defineField(fields, key, field, enumerable);
  }
  for (const key of Object.getOwnPropertySymbols(value)) {
    const enumerable = Object.prototype.propertyIsEnumerable.call(value, key);
    defineField(fields, key, copyValue(readField(value, key), seen, depth + 1, strict), enumerable);
  }
  return fields;
}

/** Copies the entries of `value` from index `from` on into `list` (holes stay holes), visiting only the entries there are. */
function copyRestOfSparseList(
  value: unknown[],
  list: unknown[],
  from: number,
  seen: Map<object, unknown>,
  depth: number,
  strict: boolean,
): unknown[] {
  for (const key of Object.keys(value)) {
    const index = Number(key);
    if (Number.isInteger(index) && index >= from)
      list[index] = copyValue(readField(value, index), seen, depth + 1, strict);
  }
  return list;
}

/** A field set as an own property: a `__proto__` key stays plain data, a non-enumerable field stays non-enumerable. */
function defineField(fields: object, key: PropertyKey, value: unknown, enumerable: boolean): void {
  Object.defineProperty(fields, key, { value, enumerable, writable: true, configurable: true });
}

function readField(value: object, key: PropertyKey): unknown {
  try {
    return (value as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}
