import { textResponse, type ScriptedResponse } from "./scripted-stream.js";

/** Text deltas in the one response of W1. */
export const W1_DELTA_COUNT = 200_000;

/** Each delta: a few characters, as a token is. */
export const W1_DELTA = "tok ";

let response: ScriptedResponse | undefined;

/** The W1 response, built on first use and shared by every run (events are never mutated). */
export function w1Response(): ScriptedResponse {
  response ??= textResponse(W1_DELTA_COUNT, W1_DELTA);
  return response;
}
