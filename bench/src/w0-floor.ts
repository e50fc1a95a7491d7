import { BENCH_MODEL, drain, scriptedStreamFn } from "./scripted-stream.js";
import { w1Response } from "./w1-streaming-script.js";

/**
 * W0, the floor: the W1 stream iterated directly, no agent. Whatever an
 * agent adds to W1 is its time minus this. Resolves to the event count.
 */
export async function runW0Floor(): Promise<number> {
  const streamFn = scriptedStreamFn([w1Response()]);
  return drain(await streamFn(BENCH_MODEL, { messages: [] }, {}));
}
