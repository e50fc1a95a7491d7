/**
 * Property `runner-seq-under-abort`: a generated `PiTurnRunner` turn
 * aborted while a hook of any of the eight kinds is still pending (past the
 * abort grace, or answering late), with an event writer that falls behind
 * from one of its first events on (answering late, rejecting late, or
 * never). `seq` must run 1, 2, 3, ... without a gap over what the writer
 * received, with the terminal status last and once, and whatever the writer
 * never received announced right before it (invariant 13), besides every
 * other invariant of the fuzz README.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: seq under an abort with a pending hook and a slow writer", () => {
  propertyTest("runner-seq-under-abort");
});
