import { describe, expect, it } from "vitest";
import { createHiddenMessage, createUserMessage, isDroppedResponse } from "../../src/index.js";

const IMAGE = { type: "image" as const, data: "aGk=", mimeType: "image/png" };

describe("createUserMessage", () => {
  it("builds a user message of the text, then the images, with the host's fields", () => {
    expect(createUserMessage("look", { images: [IMAGE], batchId: "b1", timestamp: 7 })).toEqual({
      role: "user",
      content: [{ type: "text", text: "look" }, IMAGE],
      timestamp: 7,
      batchId: "b1",
    });
  });

  for (const [args, expected] of [
    [[5], "text must be a string, got 5"],
    [[undefined], "text must be a string, got undefined"],
    [["x", null], "options must be an object, got null"],
    [["x", { images: IMAGE }], "options.images must be a list of image blocks, got object"],
    [["x", { images: [{ type: "text", text: "no" }] }], 'options.images[0].type must be one of "image", got "text"'],
    [
      ["x", { images: [{ type: "image", data: 5, mimeType: "image/png" }] }],
      "options.images[0].data must be a string, got 5",
    ],
    [["x", { batchId: 3 }], "options.batchId must be a string, got 3"],
    [["x", { timestamp: Number.NaN }], "options.timestamp must be a finite number, got NaN"],
  ] as const) {
    it(`refuses ${JSON.stringify(args)} with a TypeError naming the argument`, () => {
      expect(() => (createUserMessage as (...a: unknown[]) => unknown)(...args)).toThrow(
        new TypeError(`createUserMessage: ${expected}`),
      );
    });
  }
});

describe("createHiddenMessage", () => {
  it("builds a hidden message of text or blocks, with its source", () => {
    expect(createHiddenMessage("note", "hook")).toMatchObject({ role: "hidden", content: "note", source: "hook" });
    expect(createHiddenMessage([{ type: "text", text: "a" }, IMAGE])).toMatchObject({
      role: "hidden",
      content: [{ type: "text", text: "a" }, IMAGE],
    });
  });

  for (const [args, expected] of [
    [[5], "content must be a string or an array of content blocks, got 5"],
    [[[{ type: "text" }]], "content[0].text must be a string, got undefined"],
    [["note", 9], "source must be a string, got 9"],
  ] as const) {
    it(`refuses ${JSON.stringify(args)} with a TypeError naming the argument`, () => {
      expect(() => (createHiddenMessage as (...a: unknown[]) => unknown)(...args)).toThrow(
        new TypeError(`createHiddenMessage: ${expected}`),
      );
    });
  }
});

describe("isDroppedResponse", () => {
  it("answers false for anything that is no message, instead of throwing", () => {
    for (const value of [null, undefined, 5, "assistant"]) expect(isDroppedResponse(value as never)).toBe(false);
  });
});
