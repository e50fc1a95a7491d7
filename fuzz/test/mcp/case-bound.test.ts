/**
 * The `mcp-server` properties' "no hang" bound: a case counts as hung only
 * after the time it may legitimately spend waiting, a call timeout for
 * each call and read the server may leave unanswered, one after another.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mcpFuzzCaseArbitrary } from "../../src/mcp-server-arbitraries.js";
import { caseBoundMs } from "../../src/mcp-server-scenario.js";

const CALL_TIMEOUT_MS = 1_000;
const hang = { kind: "hang" } as const;

describe("mcp-server: the bound of a case", () => {
  it("leaves room for every call of two turns and every host read to wait out its call timeout, as for a server that answers none", () => {
    const [generated] = fc.sample(mcpFuzzCaseArbitrary, { seed: 1, numRuns: 1 });
    const call = { tool: 0, args: {} };
    const silent = {
      ...generated!,
      tools: generated!.tools.map((tool) => ({ ...tool, end: hang })),
      turns: 2 as const,
      responses: [
        [call, call, call],
        [call, call, call],
      ],
      hostReads: { declared: true, resources: hang, templates: hang, read: hang, prompts: hang, prompt: hang },
    };
    const waits = (2 * 6 + 7) * CALL_TIMEOUT_MS;

    // What the case may spend besides the waits: its connect (which may time out too) and dispose.
    expect(caseBoundMs(silent) - waits).toBeGreaterThanOrEqual(10_000);
    expect(caseBoundMs({ ...silent, turns: 1, responses: [[call]], hostReads: undefined })).toBeLessThan(waits);
  });
});
