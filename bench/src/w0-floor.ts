import { BENCH_MODEL, drain, scriptedStreamFn, type ChunkObserver } from "./scripted-stream.js";
import { w1Response } from "./w1-streaming-script.js";

/**
 * W0, the floor: the W1 stream iterated directly, no agent. Whatever an
 * agent adds to W1 is its time minus this. Resolves to the event count;
 * `onChunk` lets W3 sample the heap between stream chunks.
 */
export async function runW0Floor(onChunk?: ChunkObserver): Promise<number> {
  const streamFn = scriptedStreamFn([w1Response()], onChunk);
  return drain(await streamFn(BENCH_MODEL, { messages: [] }, {}));
}
