import type { Context } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { classifyError } from "../../src/call-stack/classify-error.js";
import {
  createOverflowRecoveryState,
  withOverflowRecovery,
  type OverflowRecoveryRequest,
} from "../../src/call-stack/overflow-recovery.js";
import { collect, scriptedStreamFn, testModel, userContext } from "../support/scripted-stream.js";

const model = testModel();
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
    const inner = scriptedStreamFn([{ kind: "error", message: OVERFLOW }, { kind: "text", pieces: ["fits now"] }]);
    const { requests, recover } = recorder(compacted);
    const original = userContext("a very long conversation");
    const result = await collect(
      withOverflowRecovery(inner, { recover, state: createOverflowRecoveryState() })(model, original, {}),
    );
    expect(result.text).toBe("fits now");
    expect(result.types).toEqual(["start", "text_start", "text_delta", "done"]);
    expect(inner.calls.map((call) => call.context)).toEqual([original, compacted]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ context: original, classified: { code: "context_overflow" } });
    expect(requests[0].error.errorMessage).toBe(OVERFLOW);
  });

  it("a second overflow after the resend surfaces", async () => {
    const inner = scriptedStreamFn([
      { kind: "error", message: OVERFLOW },
      { kind: "error", message: OVERFLOW },
    ]);
    const { requests, recover } = recorder(compacted);
    const result = await collect(withOverflowRecovery(inner, { recover, state: createOverflowRecoveryState() })(model, userContext(), {}));
    expect(inner.calls).toHaveLength(2);
    expect(requests).toHaveLength(1);
    expect(result.final).toMatchObject({ stopReason: "error", errorMessage: OVERFLOW });
    expect(classifyError(result.final).code).toBe("context_overflow");
  });

  it("runs at most once per turn: the state is shared across requests", async () => {
    const state = createOverflowRecoveryState();
    const { requests, recover } = recorder(compacted);
    const first = scriptedStreamFn([{ kind: "error", message: OVERFLOW }, { kind: "text", pieces: ["ok"] }]);
    await collect(withOverflowRecovery(first, { recover, state })(model, userContext(), {}));
    const later = scriptedStreamFn([{ kind: "error", message: "413 Request Entity Too Large" }]);
    const result = await collect(withOverflowRecovery(later, { recover, state })(model, userContext(), {}));
    expect(requests).toHaveLength(1);
    expect(later.calls).toHaveLength(1);
    expect(result.final.errorMessage).toBe("413 Request Entity Too Large");
  });

  it("treats 413 (oversized request) as overflow", async () => {
    const inner = scriptedStreamFn([{ kind: "error", message: "413 Request Entity Too Large" }, { kind: "text", pieces: ["ok"] }]);
    const { requests, recover } = recorder(compacted);
    const result = await collect(withOverflowRecovery(inner, { recover, state: createOverflowRecoveryState() })(model, userContext(), {}));
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
    const inner = scriptedStreamFn([{ kind: "error", message: OVERFLOW }]);
    const { requests, recover } = recorder(outcome as Context | undefined);
    const result = await collect(withOverflowRecovery(inner, { recover, state: createOverflowRecoveryState() })(model, userContext(), {}));
    expect(requests).toHaveLength(1);
    expect(inner.calls).toHaveLength(1);
    expect(result.final.errorMessage).toBe(OVERFLOW);
  });

  it("leaves other errors and overflow after visible output alone", async () => {
    const { requests, recover } = recorder(compacted);
    const other = scriptedStreamFn([{ kind: "error", message: "401 Incorrect API key" }]);
    const late = scriptedStreamFn([{ kind: "error", message: OVERFLOW, pieces: ["partial"] }]);
    const state = createOverflowRecoveryState();
    expect((await collect(withOverflowRecovery(other, { recover, state })(model, userContext(), {}))).final.errorMessage).toBe(
      "401 Incorrect API key",
    );
    const lateResult = await collect(withOverflowRecovery(late, { recover, state })(model, userContext(), {}));
    expect(lateResult.text).toBe("partial");
    expect(lateResult.final.errorMessage).toBe(OVERFLOW);
    expect(requests).toHaveLength(0);
    expect(state.attempted).toBe(false);
  });
});
