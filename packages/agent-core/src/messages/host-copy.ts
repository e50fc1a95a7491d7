import type { AgentMessage } from "@turnkit/agent-loop";
import { isList, isUnreadable, thrownText } from "@turnkit/agent-loop/internal";

/**
 * A copy of `value` for host code to hold: what a hook, a host callback or
 * the event writer is handed, and what a hook hands over to become part of
 * the turn. Arrays and plain objects are copied down to 256 levels, with
 * every own field (a non-enumerable one, such as a failed message's
 * classification, stays non-enumerable); anything else (a class instance,
 * a function, a typed array, a proxy that cannot be read, what lies
 * deeper) is shared, and a value met twice (a cycle) is copied once.
 * Never throws: a field whose read throws is `undefined` in the copy (see
 * {@link copyFromHost} for what host code hands over).
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
 * later. A field whose read throws (a getter, a proxy's `get` trap) throws
 * a `TypeError` naming it by its path (`text could not be read: ...`,
 * `messages[0].content could not be read: ...`); the value itself
 * unreadable throws what reading it threw. Each field is read once. Within
 * a `details` field (the host's own data, which the turn
 * carries but never reads, and which may hold what the turn handed out)
 * such a value is shared, as {@link copyForHost} shares it.
 */
export function copyFromHost<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  try {
    return copyValue(value, new Map(), 0, true) as T;
  } catch (error) {
    throw error instanceof UnreadableHostValue ? error.toError() : error;
  }
}

/**
 * A hook's answer (a decision, a patch) as the turn takes it: of an object,
 * its own enumerable fields and the fields `fields` it has (a getter on its
 * prototype or a proxy's `get` trap answering one counts), each read once,
 * then copied as {@link copyFromHost} copies; anything else as
 * {@link copyFromHost} gives it. Throws when a field cannot be read: a
 * `TypeError` naming it by its path (`text could not be read: ...`,
 * `message.content could not be read: ...`), or, for an answer no code can
 * read (a revoked proxy), what reading it threw.
 */
export function answerFromHost<T>(answer: T, fields: readonly string[]): T {
  if (typeof answer !== "object" || answer === null || isUnreadable(answer) || isList(answer))
    return copyFromHost(answer);
  // Without a prototype: an own `__proto__` key of the answer stays a plain field.
  const read: Record<string, unknown> = Object.create(null);
  for (const field of new Set([...ownFieldNames(answer), ...fields])) {
    try {
      if (field in answer) read[field] = (answer as Record<string, unknown>)[field];
    } catch (error) {
      throw new TypeError(`${field} could not be read: ${thrownText(error)}`, { cause: error });
    }
  }
  return copyFromHost(read) as T;
}

/** The own enumerable string keys of `value`; none when they cannot be listed (a proxy whose `ownKeys` trap throws). */
function ownFieldNames(value: object): string[] {
  try {
    return Object.keys(value);
  } catch {
    return [];
  }
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

/**
 * A strict copy met a value it could not read: `path` leads to it from the
 * value copied (empty: that value itself), `reason` is what reading threw.
 */
class UnreadableHostValue {
  constructor(
    readonly path: readonly PropertyKey[],
    readonly reason: unknown,
  ) {}

  /** The same, seen from the object holding it under `key`. */
  under(key: PropertyKey): UnreadableHostValue {
    return new UnreadableHostValue([key, ...this.path], this.reason);
  }

  /** What the caller of `copyFromHost` gets: a `TypeError` naming the field, or (for the value itself) what reading it threw. */
  toError(): unknown {
    if (this.path.length === 0) return this.reason;
    return new TypeError(`${pathText(this.path)} could not be read: ${thrownText(this.reason)}`, {
      cause: this.reason,
    });
  }
}

/** `messages[0].content`, `text`, `[Symbol(id)]`. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) =>
      typeof key === "number" || typeof key === "symbol" ? `[${String(key)}]` : index === 0 ? key : `.${key}`,
    )
    .join("");
}

function copyValue(value: unknown, seen: Map<object, unknown>, depth: number, strict: boolean): unknown {
  if (typeof value !== "object" || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (depth >= HOST_COPY_MAX_DEPTH) return value;
  try {
    return copyObject(value, seen, depth, strict);
  } catch (error) {
    if (strict) throw error instanceof UnreadableHostValue ? error : new UnreadableHostValue([], error);
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
      list[index] = copyField(value, index, seen, depth, strict);
    }
    return list;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const fields: Record<PropertyKey, unknown> = prototype === null ? Object.create(null) : {};
  seen.set(value, fields);
  for (const key of Object.getOwnPropertyNames(value)) {
    // A message's `details` is the host's own data, which the turn carries but never reads: shared where unreadable.
    const field = copyField(value, key, seen, depth, strict && key !== "details");
    const enumerable = Object.prototype.propertyIsEnumerable.call(value, key);
    if (enumerable && key !== "__proto__") fields[key] = field;
    else defineField(fields, key, field, enumerable);
  }
  for (const key of Object.getOwnPropertySymbols(value)) {
    const enumerable = Object.prototype.propertyIsEnumerable.call(value, key);
    defineField(fields, key, copyField(value, key, seen, depth, strict), enumerable);
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
    if (Number.isInteger(index) && index >= from) list[index] = copyField(value, index, seen, depth, strict);
  }
  return list;
}

/** A field set as an own property: a `__proto__` key stays plain data, a non-enumerable field stays non-enumerable. */
function defineField(fields: object, key: PropertyKey, value: unknown, enumerable: boolean): void {
  Object.defineProperty(fields, key, { value, enumerable, writable: true, configurable: true });
}

/**
 * The copy of `value[key]`, read once. A read that throws is `undefined` in
 * a lenient copy; in a strict one it throws, naming the key (as does any
 * value below it that cannot be read).
 */
function copyField(
  value: object,
  key: PropertyKey,
  seen: Map<object, unknown>,
  depth: number,
  strict: boolean,
): unknown {
  let field: unknown;
  try {
    field = (value as Record<PropertyKey, unknown>)[key];
  } catch (error) {
    if (strict) throw new UnreadableHostValue([key], error);
    return undefined;
  }
  try {
    return copyValue(field, seen, depth + 1, strict);
  } catch (error) {
    throw error instanceof UnreadableHostValue ? error.under(key) : error;
  }
}
