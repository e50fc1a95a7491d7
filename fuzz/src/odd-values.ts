/**
 * The values the `public-api` and `nested-options` properties hand public
 * functions: odd ones a host passes by mistake (null, NaN, a symbol, a
 * bigint, a revoked proxy, an object whose every read throws, a list with
 * a hole, a list of length 2^32 - 1 with two entries, an async iterable of such values, `fc.anything`) and plausible
 * ones to set beside them. A generated argument names a value made at call
 * time when the value itself could not be printed or replayed.
 */
import fc from "fast-check";

/** A stream function that never reaches a model: every request fails at once. */
export const noModel = () => {
  throw new Error("no model in this test");
};

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function throwingOnRead(): object {
  return new Proxy(
    {},
    {
      get: () => {
        throw new Error("a getter of the host failed");
      },
    },
  );
}

/** Values that cannot be printed or kept as they are (a scenario must be printable to be replayed): made at call time. */
const MADE_AT_CALL: Record<string, () => unknown> = {
  "a revoked proxy": revoked,
  "an object whose every read throws": throwingOnRead,
  "a user message whose content is a revoked proxy": () => ({ role: "user", content: revoked() }),
  "an event whose payload throws when read": () => ({ type: "session.status", seq: 1, payload: throwingOnRead() }),
  "a symbol": () => Symbol("odd"),
  "a list with a hole": () => [, 1],
  "a list of length 2^32 - 1 with two entries": () => hugeSparseList(),
  "an event whose payload holds a list of length 2^32 - 1": () => ({
    schema: "turnkit.runtime-event/v1",
    eventId: "e1",
    sessionId: "s1",
    turnId: "t1",
    seq: 1,
    ts: "2026-01-01T00:00:00.000Z",
    type: "message.persisted",
    payload: { reason: "messageDelta", messages: hugeSparseList() },
  }),
  "a frozen message without content": () => Object.freeze({ role: "user" }),
  "an object without a prototype": () => Object.create(null),
  "an invalid date": () => new Date(Number.NaN),
  "an async iterable of null": () => asyncIterableOf(null),
  "an async iterable of a revoked proxy": () => asyncIterableOf(revoked()),
  "an async iterable of an object whose every read throws": () => asyncIterableOf(throwingOnRead()),
  "an async iterable of an empty object": () => asyncIterableOf({}),
  "an async iterable of a chunk holding a bigint": () =>
    asyncIterableOf({ chunk: { type: "text-delta", id: "a", delta: 1n }, seq: 1, lastOfEvent: true }),
  "an async iterable whose next() throws": () => ({
    [Symbol.asyncIterator]: () => ({
      next: () => {
        throw new Error("the host's iterator failed");
      },
    }),
  }),
  "an iterable of null": () => [null],
  "an error's options whose message getter throws": () => withThrowingGetter(errorOptions(), "message"),
  "an error's options whose code getter throws": () => withThrowingGetter(errorOptions(), "code"),
  "an error's options whose cause getter throws": () => withThrowingGetter(errorOptions(), "cause"),
};

/** A list whose length was set to garbage: two entries, then holes up to 2^32 - 1 (walked index by index: hours). */
function hugeSparseList(): unknown[] {
  const list: unknown[] = [{ role: "user", content: "hi", timestamp: 1 }, "second"];
  list.length = 2 ** 32 - 1;
  return list;
}

/** Options an error class takes (`{ code, message }`), for an odd field to sit in. */
function errorOptions(): Record<string, unknown> {
  return { code: "invalid_input", message: "bad input" };
}

/** `object` with its `field` replaced by a getter that throws. */
function withThrowingGetter(object: object, field: string): object {
  return Object.defineProperty(object, field, {
    enumerable: true,
    get: () => {
      throw new Error(`the host's ${field} getter failed`);
    },
  });
}

/** An async iterable of `value` once (by hand: an async generator would await a value that cannot be read itself). */
function asyncIterableOf(value: unknown): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]: () => {
      let given = false;
      return {
        next: async () => (given ? { value: undefined, done: true } : ((given = true), { value, done: false })),
      };
    },
  };
}

/** A generated argument: a plain value, or the name of one made at call time. */
export type ApiArgument = { value: unknown } | { made: string };

/** Values a host hands over by mistake. */
export const oddValue: fc.Arbitrary<ApiArgument> = fc.oneof(
  fc
    .constantFrom<unknown>(
      undefined,
      null,
      0,
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      "",
      "x",
      true,
      10n,
      [],
      [null],
      {},
    )
    .map((value) => ({ value })),
  fc.constantFrom(...Object.keys(MADE_AT_CALL)).map((made) => ({ made })),
  fc
    .anything({ maxDepth: 2, withBigInt: true, withNullPrototype: true, withBoxedValues: true })
    .map((value) => ({ value })),
);

/** Values a call expects, so an odd one can sit beside them and be reached. */
const PLAUSIBLE: Record<string, () => unknown> = {
  "a name": () => "name",
  "a count": () => 1,
  "a function": () => () => {},
  "a stream function that fails": () => noModel,
  "an empty object": () => ({}),
  "an empty list": () => [],
  "a user message": () => ({ role: "user", content: "hi", timestamp: 1 }),
  "a list of one user message": () => [{ role: "user", content: "hi", timestamp: 1 }],
  "a model": () => ({ id: "m", provider: "p", api: "openai-completions" }),
  "an error's options": errorOptions,
  "an error code": () => "invalid_input",
};
export const plausibleValue: fc.Arbitrary<ApiArgument> = fc
  .constantFrom(...Object.keys(PLAUSIBLE))
  .map((made) => ({ made }));

/** The value an argument stands for (one made at call time is made now). */
export function valueOf(arg: ApiArgument): unknown {
  return "made" in arg ? (MADE_AT_CALL[arg.made] ?? PLAUSIBLE[arg.made])!() : arg.value;
}
