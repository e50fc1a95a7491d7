/**
 * Streams a host writes by hand instead of pi-ai's `EventStream`: the
 * scripted model's events, read through an async iterable of our own that
 * misbehaves the ways hand-written code does. Some change nothing the turn
 * may show (a second `done`, an event after it, an iterator whose
 * `return()` throws, rejects or never answers, reads answered by a thenable
 * instead of a promise, an `end()` of its own that does nothing or throws);
 * the others fail the response at one read (`next()` throws, a read answers
 * `null`, `[Symbol.asyncIterator]()` throws), which the turn must report in
 * its own words, as any failed response, without hanging.
 */
import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { StreamFn } from "@turnkit/agent-loop";
import fc from "fast-check";

/** How a hand-written stream misbehaves. */
export type HandWrittenStreamKind =
  | "plain"
  | "thenableReads"
  | "doneTwice"
  | "eventAfterDone"
  | "returnThrows"
  | "returnRejects"
  | "returnNever"
  | "nextThrows"
  | "nullRead"
  | "iteratorThrows";

/**
 * The `call`-th call of the stream function (from 0) answers a hand-written
 * stream of `kind`; `at` is the read a failing kind fails at; `end`: the
 * stream also has an `end()` of its own, which does nothing or throws.
 */
export interface HandWrittenStreamSpec {
  call: number;
  kind: HandWrittenStreamKind;
  at: number;
  end?: "noop" | "throws";
}

/** The text of what a failing hand-written stream throws (no provider status: never retried). */
export const HAND_WRITTEN_FAILURE = "the hand-written stream failed";

const KINDS: readonly HandWrittenStreamKind[] = [
  "plain",
  "thenableReads",
  "doneTwice",
  "eventAfterDone",
  "returnThrows",
  "returnRejects",
  "returnNever",
  "nextThrows",
  "nullRead",
  "iteratorThrows",
];

/** Which calls of a turn's stream function answer a hand-written stream: none in most turns. */
export const handWrittenStreamsArbitrary: fc.Arbitrary<HandWrittenStreamSpec[]> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<HandWrittenStreamSpec[]>([]) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.record(
        {
          call: fc.nat({ max: 4 }),
          kind: fc.constantFrom(...KINDS),
          at: fc.nat({ max: 6 }),
          end: fc.constantFrom("noop" as const, "throws" as const),
        },
        { requiredKeys: ["call", "kind", "at"] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
  },
);

/** `streamFn`, except that the calls `specs` list answer a hand-written stream over the stream it answered. */
export function withHandWrittenStreams(
  streamFn: StreamFn,
  specs: readonly HandWrittenStreamSpec[] | undefined,
): StreamFn {
  if (!specs || specs.length === 0) return streamFn;
  let calls = 0;
  return ((...args: Parameters<StreamFn>) => {
    const spec = specs.find((candidate) => candidate.call === calls);
    calls += 1;
    const answer = streamFn(...args) as unknown;
    if (!spec) return answer;
    if (typeof (answer as PromiseLike<unknown>)?.then === "function")
      return (answer as PromiseLike<AsyncIterable<AssistantMessageEvent>>).then((stream) => handWritten(stream, spec));
    return handWritten(answer as AsyncIterable<AssistantMessageEvent>, spec);
  }) as unknown as StreamFn;
}

function handWritten(source: AsyncIterable<AssistantMessageEvent>, spec: HandWrittenStreamSpec): object {
  const { kind, at, end } = spec;
  const iterate = (): AsyncIterator<AssistantMessageEvent> => {
    if (kind === "iteratorThrows") throw new Error(HAND_WRITTEN_FAILURE);
    const inner = source[Symbol.asyncIterator]();
    let reads = 0;
    let done: AssistantMessageEvent | undefined;
    let extraGiven = false;
    const read = async (): Promise<IteratorResult<AssistantMessageEvent> | null> => {
      const index = reads++;
      if (kind === "nullRead" && index === at) return null;
      if (done && !extraGiven && (kind === "doneTwice" || kind === "eventAfterDone")) {
        extraGiven = true;
        const partial = done.type === "done" ? done.message : done.type === "error" ? done.error : undefined;
        const extra: AssistantMessageEvent =
          kind === "doneTwice"
            ? done
            : { type: "text_delta", contentIndex: 0, delta: " after done", partial: partial! };
        return { value: extra, done: false };
      }
      const result = await inner.next();
      if (!result.done && (result.value?.type === "done" || result.value?.type === "error")) done = result.value;
      return result;
    };
    const iterator = {
      next: () => {
        if (kind === "nextThrows" && reads === at) throw new Error(HAND_WRITTEN_FAILURE);
        if (kind !== "thenableReads") return read();
        // A thenable, no promise: answered on its own `then`.
        return {
          then: (resolve: (value: unknown) => void, reject: (error: unknown) => void) => read().then(resolve, reject),
        };
      },
      return: () => {
        void inner.return?.();
        if (kind === "returnThrows") throw new Error("the hand-written stream's return() failed");
        if (kind === "returnRejects") return Promise.reject(new Error("the hand-written stream's return() rejected"));
        if (kind === "returnNever") return new Promise(() => undefined);
        return Promise.resolve({ value: undefined, done: true });
      },
    };
    return iterator as unknown as AsyncIterator<AssistantMessageEvent>;
  };
  const stream: Record<PropertyKey, unknown> = { [Symbol.asyncIterator]: iterate };
  if (end === "noop") stream.end = () => undefined;
  if (end === "throws")
    stream.end = () => {
      throw new Error("the hand-written stream's end() failed");
    };
  return stream;
}
