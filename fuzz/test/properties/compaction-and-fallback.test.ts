/**
 * Generated compaction and model fallback decisions.
 *
 * `model-fallback`: chains of one to three models whose attempts answer,
 * fail before any output or fail after some text, with every error class
 * the fallback layer tells apart, a retry budget and any set of triggers,
 * through agent-core's fallback layer over its transport retry; each case
 * is compared with the rules written plainly (attempts per model, the text
 * the caller saw, whether and how the request failed).
 *
 * `runner-compaction`: one or two turns of a real runner with the compaction
 * extension over generated histories in English or Chinese; summaries
 * answer, fail with 429 or 529, answer nothing, time out or overflow; main
 * requests overflow or are overloaded. After each turn: history intact
 * without a replacement, a replacement well formed (record, summary, newest
 * messages with their tool pairs), no summary after a failed one, an
 * overflowing summary sent once more and only once, every summary request
 * within the summary model's window by a provider's count, an overflow
 * compaction only after an overflow and at most once, plus the runner's
 * event and transcript checks.
 *
 * `prompt-read-registry`: the prompt-read registry under generated call
 * sequences, compared call by call with its contract written as a map.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: compaction, model fallback, retry limits, option layers and the prompt-read registry", () => {
  propertyTest("model-fallback");
  propertyTest("retry-limits");
  propertyTest("option-layers");
  propertyTest("prompt-read-registry");
  propertyTest("runner-compaction");
});
