/**
 * `runner-http-provider`: the runner's generated turns sent through pi-ai's
 * openai-completions provider to a chat-completions server on 127.0.0.1.
 * Every turn settles once, numbered without a gap, its history replayable,
 * whatever the server answers, and no model request outlives its turn.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: generated turns against a chat-completions server over HTTP", () => {
  propertyTest("runner-http-provider");
});
