/*
 * The README's event writer, compiled and run. Keep the body of `push` in
 * step with README.md.
 */
import { describe, expect, it, vi } from "vitest";
import { isTerminalEvent, type ProtocolAnyMessage, type RuntimeEvent, type StreamToolCallChunk } from "../src/index.js";
import { sampleTurn } from "./sample-events.js";

const ui = {
  appendText: vi.fn((_messageId: string, _delta: string) => {}),
  showToolCall: vi.fn((_messageId: string, _chunk: StreamToolCallChunk) => {}),
  showError: vi.fn((_code: string, _message: string) => {}),
  endTurn: vi.fn((_turnId: string) => {}),
  askApproval: vi.fn((_turnId: string, _requestId: string, _toolName: string) => {}),
  askQuestion: vi.fn((_turnId: string, _requestId: string, _message: string) => {}),
  showWarning: vi.fn((_code: string, _message: string) => {}),
  showCost: vi.fn((_totalCost: number) => {}),
};
const store = { append: vi.fn((_sessionId: string, _reason: string, _messages: ProtocolAnyMessage[]) => {}) };

const eventWriter = {
  push(event: RuntimeEvent): void {
    switch (event.type) {
      case "stream.resp": {
        const { messageId, chunk } = event.payload;
        if (chunk.kind === "text") ui.appendText(messageId, chunk.delta);
        else if (chunk.kind === "tool_call") ui.showToolCall(messageId, chunk);
        break;
      }
      case "session.status":
        if (event.payload.status === "failed") ui.showError(event.payload.error.code, event.payload.error.message);
        if (isTerminalEvent(event)) {
          if (event.payload.usage) ui.showCost(event.payload.usage.total.cost.total);
          ui.endTurn(event.turnId);
        }
        break;
      case "debug.trace":
        console[event.payload.level](event.payload.phase, event.payload.message, event.payload.attrs);
        break;
      case "message.persisted":
        store.append(event.sessionId, event.payload.reason, event.payload.messages);
        break;
      case "action.required":
        if (event.payload.kind === "tool_approval")
          ui.askApproval(event.turnId, event.payload.requestId, event.payload.toolName);
        else ui.askQuestion(event.turnId, event.payload.requestId, event.payload.message);
        break;
      case "runtime.warning":
        ui.showWarning(event.payload.code, event.payload.message);
        break;
      default: {
        const unhandled: never = event; // a new event type fails to compile here
        throw new Error(`Unhandled runtime event: ${JSON.stringify(unhandled)}`);
      }
    }
  },
};

describe("README example", () => {
  it("handles every event of a sample turn and ends the turn once", () => {
    const quiet = [
      vi.spyOn(console, "debug").mockImplementation(() => {}),
      vi.spyOn(console, "info").mockImplementation(() => {}),
    ];
    for (const event of sampleTurn()) eventWriter.push(event);
    for (const spy of quiet) spy.mockRestore();

    expect(ui.appendText).toHaveBeenCalledWith("m1", "Reading ");
    expect(ui.showToolCall).toHaveBeenCalledTimes(2);
    expect(ui.showError).toHaveBeenCalledWith("rate_limited", "429 Too Many Requests");
    expect(ui.endTurn).toHaveBeenCalledTimes(1);
    expect(ui.askApproval).toHaveBeenCalledWith("turn-1", "approval:call-2", "bash");
    expect(ui.showWarning.mock.calls).toEqual([
      ["retry_wait", "rate limited, retrying in 2.1 s"],
      ["late_tool_update", "read sent an update after its result; ignored"],
    ]);
    expect(ui.showCost).toHaveBeenCalledWith(0.00087);
    expect(store.append).toHaveBeenCalledWith("sess-1", "messageDelta", expect.any(Array));
  });
});
