import type { Context } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { classifyError } from "../../src/call-stack/classify-error.js";
import {
  createOverflowRecoveryState,
  withOverflowRecovery,
  type OverflowRecoveryRequest,
} from "../../src/call-stack/overflow-recovery.js";
import { collectStream, createScriptedModel, errorAfter } from "@turnkit/agent-loop/testing";
import { userContext } from "../support/user-context.js";

const { model } = createScriptedModel();
const OVERFLOW = "400 Your input exceeds the context window of this model";
const compacted: Context = userContext("summary of a long conversation");

function recorder(result: Context | undefined | (() => never)) {
  const requests: OverflowRecoveryRequest[] = [];
  const recover = async (request: OverflowRecoveryRequest) => {
    requests.push(request);
    return typeof result === "function" ? result() : result;
  };
  return { requests, recover };
}

describe("withOverflowRecovery", () => {
  it("recovers once and resends with the replacement context", async () => {
    const inner = createScriptedModel([errorAfter(1, OVERFLOW), "fits now"]);
    const { requests, recover } = recorder(compacted);
    const original = userContext("a very long conversation");
    const result = await collectStream(
      withOverflowRecovery(inner.streamFn, { recover, state: createOverflowRecoveryState() })(model, original, {}),
    );
    expect(result.text).toBe("fits now");
    expect(result.types).toEqual(["start", "text_start", "text_delta", "text_delta", "text_end", "done"]);
    expect(inner.requests.map((request) => request.context)).toEqual([original, compacted]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ context: original, classified: { code: "context_overflow" } });
    expect(requests[0].error.errorMessage).toBe(OVERFLOW);
  });

  it("a second overflow after the resend surfaces", async () => {
    const inner = createScriptedModel([errorAfter(1, OVERFLOW), errorAfter(1, OVERFLOW)]);
    const { requests, recover } = recorder(compacted);
    const result = await collectStream(
      withOverflowRecovery(inner.streamFn, { recover, state: createOverflowRecoveryState() })(model, userContext(), {}),
    );
    expect(inner.requests).toHaveLength(2);
    expect(requests).toHaveLength(1);
    expect(result.final).toMatchObject({ stopReason: "error", errorMessage: OVERFLOW });
    expect(classifyError(result.final).code).toBe("context_overflow");
  });

  it("runs at most once per turn: the state is shared across requests", async () => {
    const state = createOverflowRecoveryState();
    const { requests, recover } = recorder(compacted);
    const first = createScriptedModel([errorAfter(1, OVERFLOW), "ok"]);
    await collectStream(withOverflowRecovery(first.streamFn, { recover, state })(model, userContext(), {}));
    const later = createScriptedModel([errorAfter(1, "413 Request Entity Too Large")]);
    const result = await collectStream(
      withOverflowRecovery(later.streamFn, { recover, state })(model, userContext(), {}),
    );
    expect(requests).toHaveLength(1);
    expect(later.requests).toHaveLength(1);
    expect(result.final.errorMessage).toBe("413 Request Entity Too Large");
  });

  it("treats 413 (oversized request) as overflow", async () => {
    const inner = createScriptedModel([errorAfter(1, "413 Request Entity Too Large"), "ok"]);
    const { requests, recover } = recorder(compacted);
    const result = await collectStream(
      withOverflowRecovery(inner.streamFn, { recover, state: createOverflowRecoveryState() })(model, userContext(), {}),
    );
    expect(requests).toHaveLength(1);
    expect(result.text).toBe("ok");
  });

  it.each([
    ["recover returns undefined", undefined],
    [
      "recover throws",
      () => {
        throw new Error("compaction failed");
      },
    ],
  ] as const)("the original error surfaces when %s", async (_name, outcome) => {
    const inner = createScriptedModel([errorAfter(1, OVERFLOW)]);
    const { requests, recover } = recorder(outcome as Context | undefined);
    const result = await collectStream(
      withOverflowRecovery(inner.streamFn, { recover, state: createOverflowRecoveryState() })(model, userContext(), {}),
    );
    expect(requests).toHaveLength(1);
    expect(inner.requests).toHaveLength(1);
    expect(result.final.errorMessage).toBe(OVERFLOW);
  });

  it("leaves other errors and overflow after visible output alone", async () => {
    const { requests, recover } = recorder(compacted);
    const other = createScriptedModel([errorAfter(1, "401 Incorrect API key")]);
    const late = createScriptedModel([errorAfter(3, OVERFLOW, { response: "partial" })]);
    const state = createOverflowRecoveryState();
    expect(
      (await collectStream(withOverflowRecovery(other.streamFn, { recover, state })(model, userContext(), {}))).final
        .errorMessage,
    ).toBe("401 Incorrect API key");
    const lateResult = await collectStream(
      withOverflowRecovery(late.streamFn, { recover, state })(model, userContext(), {}),
    );
    expect(lateResult.text).toBe("partial");
    expect(lateResult.final.errorMessage).toBe(OVERFLOW);
    expect(requests).toHaveLength(0);
    expect(state.attempted).toBe(false);
  });
});
