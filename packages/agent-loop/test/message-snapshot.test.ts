import {
  createAssistantMessageEventStream,
  fauxAssistantMessage,
  registerFauxProvider,
  streamSimple,
  type AssistantMessage,
  type FauxProviderRegistration,
  type Model,
  type TextContent,
} from "@mariozechner/pi-ai";
import { Type, type TSchema } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, runAgentLoop, type AgentEvent, type StreamFn } from "../src/index.js";
import { assistantMessage, createScriptedModel, response, toolCall } from "../src/testing/index.js";
import { assertEventGrammar } from "./support/event-grammar.js";
import { deferred, providerMessagesOnly, runLoopScenario, testTool, textResult, user } from "./support/scenario.js";

/**
 * A message the loop delivers (`message_end`, the run's messages) never
 * changes afterwards: pi-ai's providers stream into one mutable object, and a
 * failure message built from that live partial used to share its content, so
 * it grew while the provider went on streaming. The loop now delivers a
 * snapshot, and aborts the request as soon as it stops reading it.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A stream function written the way pi-ai's providers are: one message
 * object, mutated in place, handed out as every event's partial and as the
 * final message. Streams one word every `intervalMs`. With `honourSignal`
 * false it keeps writing after an abort, as a provider whose transport does
 * not see the signal in time.
 */
function providerLikeStream(words: readonly string[], options: { intervalMs: number; honourSignal: boolean }) {
  const request = { signal: undefined as AbortSignal | undefined, writes: 0, done: deferred() };
  const streamFn: StreamFn = (model, _context, streamOptions) => {
    request.signal = streamOptions?.signal;
    const stream = createAssistantMessageEventStream();
    const output: AssistantMessage = {
      ...assistantMessage([], { timestamp: 1 }),
      api: model.api,
      provider: model.provider,
      model: model.id,
    };
    void (async () => {
      await sleep(0);
      stream.push({ type: "start", partial: output });
      const block: TextContent = { type: "text", text: "" };
      output.content.push(block);
      stream.push({ type: "text_start", contentIndex: 0, partial: output });
      for (const word of words) {
        await sleep(options.intervalMs);
        if (options.honourSignal && request.signal?.aborted) {
          output.stopReason = "aborted";
          stream.push({ type: "error", reason: "aborted", error: output });
          stream.end();
          request.done.resolve();
          return;
        }
        block.text += word;
        output.usage.output += 1;
        request.writes += 1;
        stream.push({ type: "text_delta", contentIndex: 0, delta: word, partial: output });
      }
      stream.push({ type: "text_end", contentIndex: 0, content: block.text, partial: output });
      stream.push({ type: "done", reason: "stop", message: output });
      stream.end();
      request.done.resolve();
    })();
    return stream;
  };
  return { streamFn, request };
}

const WORDS = ["one", " two", " three", " four", " five"];

/** Options of {@link runStreamed}. */
interface StreamedRun {
  /** Default: the scripted model's. */
  model?: Model<any>;
  /** The sink throws "listener bug" on this text delta (1-based); default never. */
  failAtDelta?: number;
  onEvent?: (event: AgentEvent) => void;
}

/** Runs the loop on `streamFn`, checks the event grammar, and returns the events, the run's messages and the delivered assistant message. */
async function runStreamed(streamFn: StreamFn, options: StreamedRun = {}) {
  const events: AgentEvent[] = [];
  let deltas = 0;
  const messages = await runAgentLoop(
    [user("go")],
    { systemPrompt: "", messages: [] },
    { model: options.model ?? createScriptedModel().model, convertToLlm: providerMessagesOnly },
    (event) => {
      events.push(event);
      options.onEvent?.(event);
      if (
        event.type === "message_update" &&
        event.assistantMessageEvent.type === "text_delta" &&
        (deltas += 1) === options.failAtDelta
      ) {
        throw new Error("listener bug");
      }
    },
    undefined,
    streamFn,
  );
  assertEventGrammar(events);
  const end = events.find((event) => event.type === "message_end" && event.message.role === "assistant");
  if (end?.type !== "message_end" || end.message.role !== "assistant") throw new Error("no assistant message_end");
  return { events, messages, delivered: end.message };
}

describe("persisted-error-message-keeps-changing", () => {
  it("a run failing mid-stream delivers the text so far, and it stays so while the provider writes on", async () => {
    const provider = providerLikeStream(WORDS, { intervalMs: 2, honourSignal: false });
    const { delivered, messages } = await runStreamed(provider.streamFn, { failAtDelta: 2 });
    const atDelivery = structuredClone(delivered);
    expect(atDelivery).toMatchObject({
      stopReason: "error",
      errorMessage: "listener bug",
      content: [{ type: "text", text: "one two" }],
    });

    await provider.request.done.promise;
    expect(provider.request.writes).toBe(WORDS.length);
    expect(delivered).toEqual(atDelivery);
    expect(messages.at(-1)).toBe(delivered);
  });

  it("the request is aborted as soon as the run fails, before agent_end", async () => {
    const provider = providerLikeStream(WORDS, { intervalMs: 2, honourSignal: true });
    let abortedAtAgentEnd: boolean | undefined;
    const { delivered } = await runStreamed(provider.streamFn, {
      failAtDelta: 2,
      onEvent: (event) => {
        if (event.type === "agent_end") abortedAtAgentEnd = provider.request.signal?.aborted;
      },
    });
    expect(abortedAtAgentEnd).toBe(true);
    await provider.request.done.promise;
    expect(provider.request.writes).toBe(2);
    expect(delivered.content).toEqual([{ type: "text", text: "one two" }]);
  });

  it("a listener failing on the assistant message_start (a message id that cannot be allocated): the failure message never gets the later words", async () => {
    const provider = providerLikeStream(WORDS, { intervalMs: 2, honourSignal: false });
    const agent = new Agent({ initialState: { model: createScriptedModel().model }, streamFn: provider.streamFn });
    const ended: AgentEvent[] = [];
    agent.subscribe((event) => {
      if (event.type === "message_start" && event.message.role === "assistant")
        throw new Error("cannot allocate a message id");
      if (event.type === "message_end") ended.push(event);
    });
    await agent.prompt("go");
    const failure = agent.state.messages.at(-1) as AssistantMessage;
    // The provider had opened its (still empty) text block when the loop failed.
    expect(failure).toMatchObject({
      stopReason: "error",
      errorMessage: "cannot allocate a message id",
      content: [{ type: "text", text: "" }],
    });
    const lastEnd = ended.at(-1);
    expect(lastEnd?.type === "message_end" ? lastEnd.message : undefined).toBe(failure);
    await provider.request.done.promise;
    expect(provider.request.writes).toBe(WORDS.length);
    expect(failure.content).toEqual([{ type: "text", text: "" }]);
    expect(failure.usage.output).toBe(0);
  });

  it("a stream that breaks off while its producer writes on: the failure message keeps what had streamed, and the request is aborted", async () => {
    const output = assistantMessage("partial", { timestamp: 1 });
    let requestSignal: AbortSignal | undefined;
    const streamFn: StreamFn = (_model, _context, options) => {
      requestSignal = options?.signal;
      return {
        async *[Symbol.asyncIterator]() {
          yield { type: "start" as const, partial: output };
          yield { type: "text_delta" as const, contentIndex: 0, delta: "partial", partial: output };
          setTimeout(() => {
            (output.content[0] as TextContent).text += " written later";
          }, 1);
          throw new Error("connection reset");
        },
      } as never;
    };
    const { delivered } = await runStreamed(streamFn);
    expect(requestSignal?.aborted).toBe(true);
    await sleep(5);
    expect((output.content[0] as TextContent).text).toBe("partial written later");
    expect(delivered).toMatchObject({
      stopReason: "error",
      errorMessage: "connection reset",
      content: [{ type: "text", text: "partial" }],
    });
  });

  it("a final message of its own that shares usage with the live partial (a timeout wrapper's failure) never changes", async () => {
    const output = assistantMessage("so far", { timestamp: 1 });
    const streamFn: StreamFn = () => {
      const stream = createAssistantMessageEventStream();
      queueMicrotask(() => {
        stream.push({ type: "start", partial: output });
        stream.push({ type: "text_delta", contentIndex: 0, delta: "so far", partial: output });
        // Copies the blocks but shares `usage`, as a wrapper that ends a stalled stream does.
        const failure: AssistantMessage = {
          ...output,
          content: output.content.map((block) => ({ ...block })),
          stopReason: "error",
          errorMessage: "stalled",
        };
        stream.push({ type: "error", reason: "error", error: failure });
        stream.end();
        // The provider behind the wrapper goes on counting.
        setTimeout(() => {
          output.usage.output = 42;
        }, 1);
      });
      return stream;
    };
    const { delivered } = await runStreamed(streamFn);
    await sleep(5);
    expect(output.usage.output).toBe(42);
    expect(delivered).toMatchObject({
      stopReason: "error",
      errorMessage: "stalled",
      content: [{ type: "text", text: "so far" }],
    });
    expect(delivered.usage.output).toBe(0);
  });

  it("a failure whose tool call arguments hold a huge sparse list (length 2^32 - 1) is delivered at once, entries kept", async () => {
    const list: unknown[] = ["first"];
    list[7] = "eighth";
    list.length = 2 ** 32 - 1;
    const output = assistantMessage([toolCall("read", { list }, { id: "c1" })], { timestamp: 1 });
    const streamFn: StreamFn = () => {
      const stream = createAssistantMessageEventStream();
      queueMicrotask(() => {
        stream.push({ type: "start", partial: output });
        stream.push({ type: "error", reason: "error", error: { ...output, stopReason: "error", errorMessage: "cut" } });
        stream.end();
      });
      return stream;
    };
    // Copied index by index, the snapshot of those arguments took minutes of CPU.
    const { delivered } = await runStreamed(streamFn);
    const copied = (delivered.content[0] as unknown as { arguments: { list: unknown[] } }).arguments.list;
    expect(copied).not.toBe(list);
    expect(copied.length).toBe(2 ** 32 - 1);
    expect(Object.keys(copied)).toEqual(["0", "7"]);
    expect(copied[7]).toBe("eighth");
  }, 2_000);

  describe("with pi-ai's faux provider (it writes each chunk into a shared block)", () => {
    let faux: FauxProviderRegistration | undefined;
    afterEach(() => {
      faux?.unregister();
      faux = undefined;
    });

    it("the failure message delivered mid-stream never grows, and the provider is stopped", async () => {
      faux = registerFauxProvider({
        api: "faux-snapshot-test",
        provider: "faux-snapshot-test",
        tokensPerSecond: 2000,
        tokenSize: { min: 1, max: 1 },
      });
      faux.setResponses([fauxAssistantMessage("alpha beta gamma delta epsilon zeta eta theta")]);
      const model = faux.getModel();
      let requestSignal: AbortSignal | undefined;
      const streamFn: StreamFn = (streamModel, context, options) => {
        requestSignal = options?.signal;
        return streamSimple(streamModel, context, options);
      };
      const { delivered: failure } = await runStreamed(streamFn, { model, failAtDelta: 2 });
      const atDelivery = structuredClone(failure);
      expect(failure.stopReason).toBe("error");
      expect(requestSignal?.aborted).toBe(true);
      await sleep(60);
      expect(failure).toEqual(atDelivery);
      expect((failure.content[0] as TextContent).text.length).toBeLessThan(
        "alpha beta gamma delta epsilon zeta eta theta".length,
      );
    });
  });
});

describe("snapshot-pollutes-argument-prototype", () => {
  it('a "__proto__" key in valid tool-call arguments stays an own property of the delivered message and of what the tool receives', async () => {
    let received: object | undefined;
    const check = testTool("check", {
      parameters: Type.Object({ n: Type.Number() }) as unknown as TSchema,
      execute: async (_id, params) => {
        received = params;
        return textResult("ok");
      },
    });
    // Valid as they are, so validation hands them on unconverted.
    const args = JSON.parse('{"n": 5, "__proto__": {"polluted": true}}');
    const { messages } = await runLoopScenario({
      script: [response(toolCall("check", args, { id: "c1" })), "done"],
      tools: [check],
    });
    const calling = messages.find((message): message is AssistantMessage => message.role === "assistant")!;
    const [block] = calling.content;
    const delivered = block?.type === "toolCall" ? block.arguments : undefined;
    for (const value of [delivered, received]) {
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.hasOwn(value!, "__proto__")).toBe(true);
      expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    }
  });
});
