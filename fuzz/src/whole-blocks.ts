/**
 * Providers that send some blocks of a response whole: the scripted
 * model's stream, with the deltas of its text blocks, its thinking blocks
 * or both left out, so each such block's text arrives only at its
 * `text_end` / `thinking_end` (and in the final message), while the other
 * kind still streams. The host must still be shown each block once
 * (invariant 5: a finished response shows its whole text).
 */
import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { StreamFn } from "@turnkit/agent-loop";
import fc from "fast-check";

/** The `call`-th call of the stream function (from 0) sends the blocks of `kinds` whole. */
export interface WholeBlocksSpec {
  call: number;
  kinds: "text" | "thinking" | "both";
}

/** Which calls of a turn's stream function send blocks whole: none in most turns. */
export const wholeBlocksArbitrary: fc.Arbitrary<WholeBlocksSpec[]> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<WholeBlocksSpec[]>([]) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.record({
        call: fc.nat({ max: 4 }),
        kinds: fc.constantFrom("text" as const, "thinking" as const, "both" as const),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  },
);

/** `streamFn`, except that the calls `specs` list leave out the deltas of the blocks their spec names. */
export function withWholeBlocks(streamFn: StreamFn, specs: readonly WholeBlocksSpec[] | undefined): StreamFn {
  if (!specs || specs.length === 0) return streamFn;
  let calls = 0;
  return (async (...args: Parameters<StreamFn>) => {
    const spec = specs.find((candidate) => candidate.call === calls);
    calls += 1;
    const stream = await streamFn(...args);
    if (!spec) return stream;
    const left = spec.kinds === "both" ? ["text_delta", "thinking_delta"] : [`${spec.kinds}_delta`];
    const events = (async function* () {
      // `?.`: an inner wrapper may stream what is no event at all (see withMalformedEvents); it passes as it is.
      for await (const event of stream as AsyncIterable<AssistantMessageEvent>)
        if (!left.includes(event?.type)) yield event;
    })();
    return Object.assign(events, { result: () => stream.result() });
  }) as unknown as StreamFn;
}
