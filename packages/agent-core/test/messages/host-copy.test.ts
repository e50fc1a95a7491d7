/**
 * The copies host code is handed and hands over: what is handed out never
 * throws, whatever a tool put in its details (a revoked proxy, nesting far
 * deeper than the stack); what is taken in throws for a value the turn
 * would have to read and cannot, but carries a `details` field as it is.
 */
import { describe, expect, it } from "vitest";
import { copyForHost, copyFromHost } from "../../src/messages/host-copy.js";
import { revokedProxy } from "@turnkit/agent-loop/testing";

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let level = 0; level < levels; level++) value = { v: value };
  return value;
}

describe("copyForHost", () => {
  it("copies down to 256 levels and shares what lies deeper, instead of running out of stack", () => {
    const deep = nested(100_000);
    const copy = copyForHost(deep);
    expect(copy).not.toBe(deep);
    let original: unknown = deep;
    let copied: unknown = copy;
    for (let level = 0; level < 256; level++) {
      expect(copied).not.toBe(original);
      original = (original as { v: unknown }).v;
      copied = (copied as { v: unknown }).v;
    }
    expect(copied).toBe(original);
  });

  it("shares a revoked proxy as it is", () => {
    const proxy = revokedProxy();
    const copy = copyForHost({ role: "toolResult", details: { proxy }, list: [proxy] });
    expect(copy.details.proxy).toBe(proxy);
    expect(copy.list[0]).toBe(proxy);
  });
});

describe("copyFromHost", () => {
  it("throws for a message that cannot be read, and carries details that cannot be read as they are", () => {
    expect(() => copyFromHost({ type: "replaceRequestMessages", messages: [revokedProxy()] })).toThrow(/revoked/);
    const proxy = revokedProxy();
    const taken = copyFromHost({ messages: [{ role: "toolResult", content: [], details: { proxy } }] });
    expect(taken.messages[0]!.details.proxy).toBe(proxy);
  });
});
