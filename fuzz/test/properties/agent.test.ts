/**
 * The loop's properties (the invariants numbered in fuzz/README.md's
 * table) checked through `Agent`.
 *
 * `agent`: generated responses (text, thinking, 0–6 tool calls, `length`,
 * stream faults, hangs), tools (virtual-clock and microtask durations,
 * throws, terminate, updates also after settling, sequential or parallel),
 * loop hooks (every decision, throws), host actions at random moments
 * (steer, steerBatch, followUp, abort) and failing listeners. After each
 * run: event grammar (1), every call answered and replayable through pi-ai's
 * OpenAI conversion (2), transcript built from `message_end` once each (4),
 * streamed text equals the kept text (5), no leaks (6).
 *
 * `agent-differential`: the same scenarios on the ground pi-agent-core's
 * `Agent` shares (see `fuzz/src/agent-differential.ts`), run on both: the
 * same events, transcript and requests (19).
 *
 * `tool-arguments` (Agent and PiTurnRunner): JSON with prototype-polluting
 * keys, invalid JSON fragments and wrong types where an object belongs, long
 * strings. Every call gets a result and no prototype changes.
 *
 * The checks live in `fuzz/src/observation-checks.ts`; `pnpm fuzz` runs the same
 * properties with a large budget.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: Agent", () => {
  propertyTest("agent");
  propertyTest("agent-differential");
  propertyTest("tool-arguments");
});
