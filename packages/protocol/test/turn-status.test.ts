import { describe, expect, it } from "vitest";
import { TERMINAL_STATUSES, TURN_STATUSES, isTerminalStatus } from "../src/index.js";

describe("turn statuses", () => {
  it("lists running first and the three terminal statuses", () => {
    expect(TURN_STATUSES).toEqual(["running", "completed", "aborted", "failed"]);
    expect(TERMINAL_STATUSES).toEqual(["completed", "aborted", "failed"]);
    expect(Object.isFrozen(TERMINAL_STATUSES)).toBe(true);
  });

  it("isTerminalStatus is true for terminal statuses only", () => {
    expect(TURN_STATUSES.filter(isTerminalStatus)).toEqual(TERMINAL_STATUSES);
    expect(isTerminalStatus("running")).toBe(false);
    expect(isTerminalStatus("done")).toBe(false);
  });
});
