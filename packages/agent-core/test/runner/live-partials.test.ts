/**
 * A response the turn ends early keeps only the text its host was shown.
 * pi-ai's providers (its faux test provider as well) stream into one live
 * message that every event's partial points at, and go on writing into it
 * while the turn handles an event. Before, an abort or a failing writer
 * made the kept message a snapshot of that object at the moment the turn
 * stopped reading: the history held text no `stream.resp` chunk had shown
 * ("«r1» alpha beta" after the chunk "«r1»").
 */
import {
  type AssistantMessage,
  type FauxProviderRegistration,
  fauxAssistantMessage,
  registerFauxProvider,
} from "@mariozechner/pi-ai";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeEvent } from "@turnkit/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { PiTurnRunner } from "../../src/index.js";

let faux: FauxProviderRegistration | undefined;
afterEach(() => {
  faux?.unregister();
  faux = undefined;
});

/** Runs a turn answered by the faux provider; `onText` is the writer's answer to each text chunk. */
async function runFauxTurn(onText: (index: number, controller: AbortController) => void | Promise<void>) {
  faux = registerFauxProvider({ api: "faux-live-partials", provider: "faux-live", tokenSize: { min: 1, max: 1 } });
  faux.setResponses([fauxAssistantMessage("«r1» alpha beta gamma delta")]);
  const controller = new AbortController();
  const shown: string[] = [];
  const stored: AgentMessage[] = [];
  const outcome = await new PiTurnRunner().runTurn({
    sessionId: "s",
    turnId: "t",
    systemPrompt: "You answer.",
    userMessage: { text: "hi" },
    llm: { model: faux.getModel() },
    llmRetry: false,
    disableBuiltinToolFallback: true,
    signal: controller.signal,
    hooks: { onHistoryChangedHook: (change) => void stored.push(...change.messages) },
    eventWriter: {
      push(event: RuntimeEvent) {
        if (event.type !== "stream.resp" || event.payload.chunk.kind !== "text") return;
        shown.push(event.payload.chunk.delta);
        return onText(shown.length - 1, controller);
      },
    },
  });
  const answer = stored.find((message): message is AssistantMessage => message.role === "assistant");
  return { outcome, shown: shown.join(""), answer };
}

describe("a response ended early keeps what the host was shown", () => {
  it("aborted at the first text chunk while the provider writes on: the kept message holds the chunks written, not the provider's later text", async () => {
    const turn = await runFauxTurn(async (index, controller) => {
      if (index !== 0) return;
      controller.abort();
      for (let tick = 0; tick < 20; tick++) await Promise.resolve();
    });
    expect(turn.outcome.kind).toBe("aborted");
    expect(turn.answer?.stopReason).toBe("aborted");
    // What the writer was handed before the abort took hold, and nothing the provider wrote after it.
    expect(turn.answer?.content).toEqual([{ type: "text", text: turn.shown }]);
    expect(turn.shown.length).toBeLessThan("«r1» alpha beta gamma delta".length);
  });

  it("a writer that fails at the second text chunk: the kept message holds the chunks written before", async () => {
    const turn = await runFauxTurn((index) => {
      if (index === 1) throw new Error("the event writer failed");
    });
    expect(turn.outcome.kind).toBe("failed");
    const text = (turn.answer?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");
    // The chunk the writer failed on was handed to it, so it counts as shown; nothing after it is kept.
    expect(turn.shown).toBe("«r1» alp");
    expect(text).toBe(turn.shown);
  });
});
