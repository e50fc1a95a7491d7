/**
 * How a runner's scenario tool hands its answer over oddly (see
 * `OddToolAnswer` in `scenario.ts`): thenables that answer twice, and lists
 * with a length of 2^32 - 1.
 */
import type { OddToolAnswer } from "./scenario.js";

/**
 * A thenable standing for `answer` that answers twice, as careless code does:
 * only its first answer may count.
 */
export function oddThenable(odd: OddToolAnswer, answer: Promise<unknown>, callId: string): Promise<never> {
  const second = { content: [{ type: "text", text: `${callId} second answer` }] };
  // A thenable whose `then` throws once it has resolved: the promise that adopts it keeps the result.
  if (odd === "thenThrowsAfterResolve")
    return answer.then((result) => ({
      // biome-ignore lint/suspicious/noThenProperty: a thenable is what this tool answers
      then(resolve: (value: unknown) => void) {
        resolve(result);
        throw new Error(`the thenable of ${callId} threw`);
      },
    })) as Promise<never>;
  return {
    then(resolve: (value: unknown) => void, reject: (error: unknown) => void) {
      answer.then(
        (result) => {
          if (odd === "rejectThenResolve") {
            reject(new Error(`tool call ${callId} rejected first`));
            resolve(result);
            return;
          }
          resolve(result);
          if (odd === "thenableTwice") resolve(second);
          if (odd === "resolveThenReject") reject(new Error(`tool call ${callId} rejected late`));
        },
        (error) => {
          reject(error);
          resolve(second);
        },
      );
    },
  } as unknown as Promise<never>;
}

/** `first` entries, then holes up to a length of 2^32 - 1: made at once, billions of steps to walk by index. */
export function hugeList(...first: unknown[]): unknown[] {
  const list = [...first];
  list.length = 2 ** 32 - 1;
  return list;
}
