import { fauxAssistantMessage, registerFauxProvider, streamSimple } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/testing/index.js";
import { collectEvents, contextWith, typesOf } from "./stream-test-kit.js";

describe("side by side with pi-ai's faux provider", () => {
  let unregister: (() => void) | undefined;
  afterEach(() => {
    unregister?.();
    unregister = undefined;
  });

  it("both stream their own responses in the same process", async () => {
    const faux = registerFauxProvider();
    unregister = faux.unregister;
    faux.setResponses([fauxAssistantMessage("from faux")]);
    const scripted = createScriptedModel(["from scripted"]);

    const [fauxEvents, scriptedEvents] = await Promise.all([
      collectEvents(streamSimple(faux.getModel(), contextWith("hi"))),
      collectEvents(await scripted.streamFn(scripted.model, contextWith("hi"))),
    ]);

    expect(fauxEvents.at(-1)).toMatchObject({
      type: "done",
      message: { content: [{ type: "text", text: "from faux" }] },
    });
    expect(scriptedEvents.at(-1)).toMatchObject({
      type: "done",
      message: { content: [{ type: "text", text: "from scripted" }] },
    });
    // The two share the event grammar: start, text_start, deltas, text_end, done.
    const shape = (types: string[]) =>
      types.filter((type, index) => type !== "text_delta" || types[index - 1] !== "text_delta");
    expect(shape(typesOf(fauxEvents))).toEqual(shape(typesOf(scriptedEvents)));
    expect(faux.state.callCount).toBe(1);
    expect(scripted.requests).toHaveLength(1);

    faux.unregister();
    unregister = undefined;
    expect(() => streamSimple(faux.getModel(), contextWith("hi"))).toThrow(/No API provider/);
  });
});
