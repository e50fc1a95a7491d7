/**
 * The checks of payloads a turn emits for others: `validateActionRequired`
 * (a question, before it is put to a person) and `validateRuntimeWarning` (a
 * warning a host hands a turn). For `validateActionRequired`: a
 * well-formed payload of either kind passes as it is; anything else fails
 * with one readable line per field.
 */
import { describe, expect, it } from "vitest";
import { validateActionRequired, validateRuntimeWarning } from "../src/index.js";

describe("validateActionRequired", () => {
  it("passes a well-formed tool approval and elicitation", () => {
    const approval = { requestId: "r", kind: "tool_approval", toolCallId: "c", toolName: "t", arguments: {} };
    expect(validateActionRequired(approval)).toEqual({ ok: true, payload: approval });
    const elicitation = { requestId: "r", kind: "elicitation", message: "?", requestedSchema: {}, serverName: "s" };
    expect(validateActionRequired(elicitation)).toEqual({ ok: true, payload: elicitation });
  });

  it("names an unknown kind, and each wrong field once", () => {
    expect(validateActionRequired(null)).toEqual({
      ok: false,
      errors: ['/kind: expected "tool_approval" or "elicitation", got null'],
    });
    expect(validateActionRequired({ kind: "bogus" })).toEqual({
      ok: false,
      errors: ['/kind: expected "tool_approval" or "elicitation", got "bogus"'],
    });
    expect(validateActionRequired({ kind: "tool_approval", requestId: "r", toolName: 5 })).toEqual({
      ok: false,
      errors: [
        "/toolCallId: Expected required property",
        "/arguments: Expected required property",
        "/toolName: Expected string",
      ],
    });
  });
});

describe("validateRuntimeWarning", () => {
  it("passes a warning with the fields of its code, and names an unknown code or each missing field once", () => {
    const degraded = { code: "extension_degraded", message: "down", extensionId: "mcp", tools: ["t"] };
    expect(validateRuntimeWarning(degraded)).toEqual({ ok: true, warning: degraded });
    expect(validateRuntimeWarning({ code: "hook_abandoned", message: "m" })).toEqual({
      ok: false,
      errors: ["/hook: Expected required property"],
    });
    expect(validateRuntimeWarning(5)).toMatchObject({
      ok: false,
      errors: [expect.stringMatching(/^\/code: expected one of retry_wait, .* got number$/)],
    });
  });
});
