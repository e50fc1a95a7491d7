/**
 * The loop's properties (the invariants numbered in fuzz/README.md's
 * table) checked through `PiTurnRunner`.
 *
 * `runner`: everything the Agent property generates, plus the eight
 * `PiTurnHooks` (every decision, throws), steering callbacks, an event
 * writer that is slow or fails, and transport retry on the virtual clock.
 *
 * `runner-provider-failures`: stream functions answering "429 ...",
 * "503 ...", "401 ..." (and the other error classes the transport retry sorts) before or after visible
 * output, with Retry-After hints, stream watchdogs and aborts during
 * backoff, all on the virtual clock.
 *
 * After each run: the loop's grammar as traces (1), the host's history
 * answers every call and converts for a real provider (2), one outcome and
 * the matching terminal status last (3), `seq` increasing and history
 * delivered once in order (4), no text shown twice and no retry after
 * visible output (5), nothing left on the caller's signal or the clock (6),
 * `seq` without a gap and whatever a writer never received announced (13).
 *
 * `runner-odd-history`: histories as stores keep them (results missing,
 * repeated, after a user message, for an earlier or no call; error and
 * aborted responses with calls; hidden, host and batched messages) and
 * images of every size in them, in the turn's message and in its tools'
 * results: each request holds only results providers take and exactly
 * the history's results that do, every image in its place or named by a
 * placeholder, the newest 20 that are not tiny (32).
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: PiTurnRunner", () => {
  propertyTest("runner");
  propertyTest("runner-provider-failures");
  propertyTest("runner-odd-history");
});
