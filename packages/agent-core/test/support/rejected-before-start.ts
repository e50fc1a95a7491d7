import { createRecordingEventWriter, createScriptedModel } from "@turnkit/agent-core/testing";
import { expect } from "vitest";
import { PiTurnRunner, type RunTurnInput } from "../../src/index.js";

/**
 * What `runTurn` rejects with for a valid input that `change` then spoils;
 * checks that nothing started: no event written, no model request.
 */
export async function rejectedBeforeStart(change: (input: Record<string, any>) => void): Promise<unknown> {
  const model = createScriptedModel(["never"]);
  const writer = createRecordingEventWriter();
  const input: Record<string, any> = {
    sessionId: "s",
    turnId: "t",
    systemPrompt: "p",
    userMessage: { text: "hello" },
    llm: { model: model.model, streamFn: model.streamFn },
    eventWriter: writer,
    disableBuiltinToolFallback: true,
  };
  change(input);
  const error = await new PiTurnRunner().runTurn(input as unknown as RunTurnInput).catch((caught: unknown) => caught);
  expect(writer.events).toHaveLength(0);
  expect(model.requests).toHaveLength(0);
  return error;
}
