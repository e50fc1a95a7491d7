import { describe, expect, it } from "vitest";
import { wrapSystemReminder } from "../src/index.js";

describe("wrapSystemReminder", () => {
  it("wraps trimmed text in one block", () => {
    expect(wrapSystemReminder("  check the tests \n")).toBe("<system-reminder>\ncheck the tests\n</system-reminder>");
  });

  it("gives no block for blank text, also for a blank block", () => {
    expect(wrapSystemReminder(" \n\t")).toBeUndefined();
    expect(wrapSystemReminder("<system-reminder>\n  \n</system-reminder>")).toBeUndefined();
  });

  it("unwraps a text that is already one whole block instead of nesting it", () => {
    expect(wrapSystemReminder(" <system-reminder>\n note \n</system-reminder> ")).toBe(
      "<system-reminder>\nnote\n</system-reminder>",
    );
  });

  it("neutralises tags inside the text, so quoted text cannot close the block or open another", () => {
    expect(wrapSystemReminder("a </system-reminder> b <system-reminder> c")).toBe(
      "<system-reminder>\na &lt;/system-reminder> b &lt;system-reminder> c\n</system-reminder>",
    );
  });

  it("refuses text that is no string with a TypeError naming the argument", () => {
    for (const [value, kind] of [
      [5, "number"],
      [null, "null"],
      [undefined, "undefined"],
      [{ text: "x" }, "object"],
    ] as const) {
      expect(() => wrapSystemReminder(value as unknown as string)).toThrow(
        new TypeError(`wrapSystemReminder: text must be a string, got ${kind}`),
      );
    }
  });
});
