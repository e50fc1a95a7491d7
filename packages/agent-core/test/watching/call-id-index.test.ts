/**
 * The index a long turn's tool call timer finds calls in: every id added is
 * found at its slot however often the index grew, and an id never added
 * is not found.
 */
import { describe, expect, it } from "vitest";
import { CallIdIndex } from "../../src/turn-watch/call-id-index.js";

describe("CallIdIndex", () => {
  it("finds each of 5,000 ids at its slot, as it grows, and no id never added", () => {
    const index = new CallIdIndex();
    const ids: string[] = [];
    for (let slot = 0; slot < 5_000; slot++) {
      ids.push(slot % 2 === 0 ? `toolu_${slot.toString(36)}` : `call_${slot}`);
      index.add(slot, ids);
      // The newest and an old one, while it grows.
      expect(index.find(ids[slot]!, ids)).toBe(slot);
      expect(index.find(ids[slot >> 1]!, ids)).toBe(slot >> 1);
    }
    ids.forEach((id, slot) => expect(index.find(id, ids)).toBe(slot));
    for (const absent of ["", "call_5000", "toolu_", "call_-1", "x".repeat(200)]) expect(index.find(absent, ids)).toBeUndefined();
  });
});
