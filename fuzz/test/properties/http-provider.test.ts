/**
 * `runner-http-provider`: the runner's generated turns sent through pi-ai's
 * OpenAI (chat completions, responses), Anthropic and Gemini providers to a
 * server of that API on 127.0.0.1.
 * Every turn settles once, numbered without a gap, its history replayable,
 * whatever the server answers, and no model request outlives its turn.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: generated turns against a model server over HTTP", () => {
  propertyTest("runner-http-provider");
});
