/**
 * `value` without its fields that are null, other than those named in
 * `kept`; `value` itself when it has none, or is not a plain object.
 * Servers written in languages whose absent value is written as null
 * (Python's `None`) send optional fields so, where the protocol's schema
 * takes only an absent field.
 */
export function withoutNullFields(value: unknown, kept: readonly string[] = []): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value);
  const read = entries.filter(([key, field]) => field !== null || kept.includes(key));
  return read.length === entries.length ? value : Object.fromEntries(read);
}

/**
 * A JSON-RPC message (anything else is returned as it is) without the
 * members a server whose language writes an absent value as null writes
 * so, where JSON-RPC and the protocol take only an absent member (and its
 * schema refuses the whole message): a null `id` of a notification (as
 * JSON-RPC 1.0 wrote notifications), a null `params`, a null `error`
 * beside a result or a null `result` beside an error, a null `_meta` of
 * `params` or `result`, and a notification's null parameters other than
 * `data` (a log message's `"data": null` is its data): `"total": null` of
 * progress, `"logger": null` of a log message.
 */
export function withoutNullMessageMembers(message: unknown): unknown {
  if (!isPlainObject(message)) return message;
  const { id, method, params, result, error } = message;
  const notification = typeof method === "string" && (id === null || id === undefined);
  const read: Record<string, unknown> = { ...message };
  if (notification && id === null) delete read.id;
  if (params === null) delete read.params;
  if (error === null && result !== undefined && result !== null) delete read.error;
  if (result === null && error !== undefined && error !== null) delete read.result;
  const readParams = isPlainObject(params)
    ? notification
      ? withoutNullFields(params, ["data"])
      : withoutNullMeta(params)
    : params;
  const readResult = isPlainObject(result) ? withoutNullMeta(result) : result;
  if (readParams === params && readResult === result && Object.keys(read).length === Object.keys(message).length)
    return message;
  if (readParams !== params) read.params = readParams;
  if (readResult !== result) read.result = readResult;
  return read;
}

function withoutNullMeta(value: Record<string, unknown>): Record<string, unknown> {
  if (value._meta !== null) return value;
  const { _meta: _null, ...rest } = value;
  return rest;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The result of `initialize` (anything else is returned as it is) without
 * the fields a server whose language writes an absent value as null writes
 * so: its own optional fields (`"instructions": null`), a capability
 * written as null (`"logging": null`: not declared) and a capability's null
 * fields (`"listChanged": null`), and the null fields of `serverInfo`. The
 * SDK's client checks this result itself: one null field fails the
 * handshake, and the server is never connected.
 */
export function withoutNullInitializeFields(result: unknown): unknown {
  if (!isPlainObject(result)) return result;
  const read = withoutNullFields(result) as Record<string, unknown>;
  const { capabilities, serverInfo } = read;
  const readCapabilities = isPlainObject(capabilities) ? withoutNullFields(capabilities) : capabilities;
  const readEach = isPlainObject(readCapabilities)
    ? Object.fromEntries(Object.entries(readCapabilities).map(([name, value]) => [name, withoutNullFields(value)]))
    : readCapabilities;
  return {
    ...read,
    ...(capabilities !== undefined && { capabilities: readEach }),
    ...(serverInfo !== undefined && { serverInfo: withoutNullFields(serverInfo) }),
  };
}
