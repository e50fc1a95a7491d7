import { describe, expect, it } from "vitest";
import { runLoopScenario } from "./support/scenario.js";

/**
 * A run that fails records one failure message: when the message still open
 * at the failure is already in the run's messages, the failure message
 * replaces it instead of following it.
 */

describe("failure-message-recorded-twice", () => {
  it("a listener failing on the message_start of a failure message: the run's messages hold only the message it ends with", async () => {
    const { messages, events } = await runLoopScenario({
      script: ["never requested"],
      config: {
        transformContext: async () => {
          throw new Error("transform failed");
        },
      },
      onEvent: (event) => {
        if (event.type === "message_start" && event.message.role === "assistant") throw new Error("listener bug");
      },
    });
    const ends = events.flatMap((event) => (event.type === "message_end" ? [event.message] : []));
    expect(messages).toEqual(ends);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "listener bug" });
  });
});
