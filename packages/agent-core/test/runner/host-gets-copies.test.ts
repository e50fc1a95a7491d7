/**
 * Host code changes a turn only through what it decides, never by editing
 * what it was handed. Each hook, host callback and tool gets a copy: a
 * hook that empties a message's content, renames a role, edits a call's
 * arguments or a tool result, a tool that edits its own arguments, all
 * leave the transcript, the model's next request and what later hooks see
 * as they were. (The event writer is handed events as built, read-only by
 * contract: see `EventWriter.push`.) Before, each
 * of them edited the turn's own objects: the turn failed later with an
 * engine error ("step.content is not iterable", classified `upstream`), a
 * call lost its result, or the model was sent arguments it never wrote.
 */
import { errorAfter, response, toolCall } from "@turnkit/agent-loop/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  createRecordingEventWriter,
  createRecordingTool,
  runScriptedTurn,
} from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { type PiTurnHooks, type RunTurnInput, getAttachedClassifiedError } from "../../src/index.js";

type Edit = (value: any) => void;

/** Overwrites whatever it can reach of a message: its content, its role, its blocks' fields. */
const wreckMessage: Edit = (message) => {
  if (!message || typeof message !== "object") return;
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (block && typeof block === "object") {
        block.type = "wrecked";
        block.arguments = null;
        block.id = "";
      }
    }
  }
  message.content = 5;
  message.role = "wrecked";
  message.stopReason = "error";
  message.usage = null;
};

const wreckAll: Edit = (messages) => {
  if (!Array.isArray(messages)) return;
  for (const message of messages) wreckMessage(message);
  messages.length = 0;
};

/** The transcript without what differs from run to run (timestamps). */
function normalized(messages: readonly unknown[]): unknown {
  return JSON.parse(JSON.stringify(messages, (key, value) => (key === "timestamp" ? undefined : value)));
}

async function turnWith(input: Partial<RunTurnInput>, writerEdit?: Edit) {
  const shell = createRecordingTool("shell", { executionMode: "parallel" });
  const writer = createRecordingEventWriter(writerEdit ? { onEvent: writerEdit } : {});
  const turn = await runScriptedTurn({
    script: [response([toolCall("shell", { value: "a" })]), "done"],
    writer,
    input: { tools: [shell], ...input },
  });
  return { turn, calls: shell.calls.map((call) => call.input) };
}

const hookEdits: Record<string, PiTurnHooks> = {
  "a before-LLM hook that wrecks the request's messages": {
    beforeLlmCallHook: (event) => {
      wreckAll(event.messages);
      return undefined;
    },
  },
  "an observer of the prepared request that wrecks its messages and tools": {
    onLlmCallPreparedHook: (event) => {
      wreckAll(event.context.messages);
      if (event.context.tools) event.context.tools.length = 0;
      event.context.systemPrompt = "wrecked";
    },
  },
  "an after-LLM hook that wrecks the response": {
    afterLlmCallHook: (event) => {
      wreckMessage(event.message);
      return undefined;
    },
  },
  "a before-tool hook that wrecks the call, its arguments and its response": {
    beforeToolCallHook: (event) => {
      (event.args as { value: unknown }).value = 7;
      wreckMessage(event.assistantMessage);
      (event.toolCall as { id: string }).id = "other";
      (event.toolCall as { arguments: unknown }).arguments = null;
    },
  },
  "a tool-start observer that wrecks the call, its arguments and its response": {
    onToolExecutionStartHook: (event) => {
      (event.args as { value: unknown }).value = 7;
      wreckMessage(event.assistantMessage);
      (event.toolCall as { id: string }).id = "other";
    },
  },
  "an after-tool hook that wrecks the result and the response, deciding nothing": {
    afterToolCallHook: (event) => {
      (event.result as { content: unknown }).content = null;
      wreckMessage(event.assistantMessage);
    },
  },
  "a step-end hook that wrecks the step": {
    onStepEndHook: (event) => {
      wreckMessage(event.message);
      wreckAll(event.toolResults);
    },
  },
};

describe("host code that edits what it was handed changes nothing of the turn", async () => {
  const baseline = await turnWith({});
  const stored = normalized(baseline.turn.transcript);
  const secondRequest = normalized(baseline.turn.requests[1]!.context.messages);

  /**
   * The turn went on as if nothing was edited: the same outcome, calls and
   * next request. `stored`: the history the host was handed is the same as
   * well (unless host code edited its own copy of it: the history hooks and
   * the `message.persisted` events share one copy of each change).
   */
  const expectUnchanged = ({ turn, calls }: Awaited<ReturnType<typeof turnWith>>, { storedToo = true } = {}) => {
    expect(turn.outcome).toEqual({ kind: "completed" });
    assertRuntimeEventSequence(turn.events);
    expect(calls).toEqual([{ value: "a" }]);
    if (storedToo) {
      assertToolCallsAnswered(turn.transcript);
      expect(normalized(turn.transcript)).toEqual(stored);
    }
    expect(normalized(turn.requests[1]!.context.messages)).toEqual(secondRequest);
    expect(turn.requests[1]!.context.tools?.map((tool) => tool.name)).toEqual(["shell"]);
  };

  for (const [name, hooks] of Object.entries(hookEdits)) {
    it(name, async () => {
      expectUnchanged(await turnWith({ hooks }));
    });
  }

  it("a history hook that wrecks what it stores, ahead of another: the later hook stores the history unchanged", async () => {
    const seenByLaterHook: AgentMessage[] = [];
    expectUnchanged(
      await turnWith({
        hooks: {
          onHistoryChangedHook: [
            (change) => wreckAll(change.messages),
            (change) => void seenByLaterHook.push(...change.messages),
          ],
        },
      }),
    );
    expect(normalized(seenByLaterHook)).toEqual(stored);
  });

  it("the first history hook's copy of a change is the one message.persisted announces (a store keyed by the change's list finds it in the event); later hooks get their own", async () => {
    const handed: (readonly AgentMessage[])[][] = [[], []];
    const { turn } = await turnWith({
      hooks: {
        onHistoryChangedHook: [
          (change) => void handed[0]!.push(change.messages),
          (change) => void handed[1]!.push(change.messages),
        ],
      },
    });
    const announced = turn.writer.ofType("message.persisted").map((event) => event.payload.messages);
    expect(announced.length).toBeGreaterThan(0);
    expect(handed[0]).toHaveLength(announced.length);
    handed[0]!.forEach((list, index) => expect(list).toBe(announced[index]));
    expect(handed[1]).toEqual(handed[0]);
    handed[1]!.forEach((list, index) => expect(list).not.toBe(announced[index]));
  });

  it("host callbacks that wreck the step they are shown (shouldStopAfterTurn, tryBeginClose)", async () => {
    expectUnchanged(
      await turnWith({
        shouldStopAfterTurn: ({ message, toolResults }) => {
          wreckMessage(message);
          wreckAll(toolResults);
          return false;
        },
        tryBeginClose: ({ lastAssistantMessage }) => {
          wreckMessage(lastAssistantMessage);
          return true;
        },
      }),
    );
  });

  it("a tool that edits its own arguments", async () => {
    const seen: unknown[] = [];
    const shell = createRecordingTool("shell", { executionMode: "parallel" });
    const editing = {
      ...shell,
      impl: {
        execute: (ctx: never, params: { value: unknown }, signal: AbortSignal, onUpdate: never) => {
          seen.push({ ...params });
          params.value = "edited by the tool";
          return shell.impl.execute(ctx, params as never, signal, onUpdate);
        },
      },
    };
    const turn = await runScriptedTurn({
      script: [response([toolCall("shell", { value: "a" })]), "done"],
      input: { tools: [editing] },
    });
    expect(seen).toEqual([{ value: "a" }]);
    expect(normalized(turn.transcript)).toEqual(
      (normalized(baseline.turn.transcript) as unknown[]).map(resultAs("shell:edited by the tool")),
    );
    expect(normalized(turn.requests[1]!.context.messages)).toEqual(
      (secondRequest as unknown[]).map(resultAs("shell:edited by the tool")),
    );
  });

  it("a before-LLM hook that edits the messages it handed over in a replacement, one request later", async () => {
    let handedOver: AgentMessage[] | undefined;
    expectUnchanged(
      await turnWith({
        hooks: {
          beforeLlmCallHook: (event) => {
            if (handedOver) {
              wreckAll(handedOver);
              return undefined;
            }
            handedOver = [...event.messages];
            return { type: "replaceMessages", messages: handedOver };
          },
        },
      }),
    );
  });

  it("a step-end hook that edits a message after queueing it", async () => {
    let queued: AgentMessage | undefined;
    const turn = await runScriptedTurn({
      script: ["first", "second"],
      input: {
        hooks: {
          onStepEndHook: (event) => {
            if (event.stepIndex > 0) return;
            queued = { role: "user", content: [{ type: "text", text: "one more thing" }], timestamp: 1 };
            event.enqueue(queued);
            wreckMessage(queued);
          },
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(JSON.stringify(turn.requests[1]!.context.messages)).toContain("one more thing");
  });
});

describe("a copy keeps what the original carries", () => {
  it("a failed response shown to a step-end hook still carries its classification (a non-enumerable field)", async () => {
    const codes: (string | undefined)[] = [];
    const turn = await runScriptedTurn({
      script: [errorAfter(0, "429 rate limit exceeded")],
      input: { hooks: { onStepEndHook: (event) => void codes.push(getAttachedClassifiedError(event.message)?.code) } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "rate_limited" } });
    expect(codes).toEqual(["rate_limited"]);
  });
});

/** The tool result's text replaced by `text` (a tool that edits its arguments answers from what it edited). */
function resultAs(text: string) {
  return (message: any) =>
    message.role === "toolResult" ? { ...message, content: [{ type: "text", text }] } : message;
}
