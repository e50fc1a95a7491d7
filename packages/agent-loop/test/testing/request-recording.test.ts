import { Type, type Context, type Message } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
  createScriptedModel,
  requestText,
  toolResultMessage,
  userMessage,
  assistantMessage,
  toolCall,
} from "../../src/testing/index.js";

describe("scripted model: request recording", () => {
  it("records model, context, tools and options as snapshots the caller cannot change later", async () => {
    const scripted = createScriptedModel(["ok"]);
    const messages: Message[] = [userMessage("first question", { timestamp: 1 })];
    const tool = {
      name: "read",
      label: "Read",
      description: "Reads a file",
      parameters: Type.Object({ path: Type.String() }),
      execute: async () => ({ content: [], details: undefined }),
    };
    const tools = [tool];
    const context: Context = { systemPrompt: "Be brief.", messages, tools };
    const controller = new AbortController();
    const options = {
      apiKey: "key-from-getApiKey",
      maxTokens: 100,
      headers: { "x-trace": "1" },
      signal: controller.signal,
      onPayload: () => undefined,
    };

    await (await scripted.streamFn(scripted.model, context, options)).result();

    messages.push(userMessage("added later", { timestamp: 2 }));
    (messages[0] as { content: string }).content = "rewritten";
    tools.push({ ...tool, name: "write" });
    tool.description = "changed";
    options.headers["x-trace"] = "2";
    context.systemPrompt = "changed";

    const request = scripted.lastRequest();
    expect(request).toBeDefined();
    if (!request) return;
    expect(request.index).toBe(0);
    expect(request.context.systemPrompt).toBe("Be brief.");
    expect(request.context.messages).toEqual([{ role: "user", content: "first question", timestamp: 1 }]);
    expect(request.context.tools?.map((recorded) => [recorded.name, recorded.description])).toEqual([
      ["read", "Reads a file"],
    ]);
    expect(request.context.tools?.[0].parameters).toMatchObject({
      type: "object",
      properties: { path: { type: "string" } },
    });
    expect(request.context.tools?.[0]).not.toHaveProperty("execute");
    expect(request.options).toEqual({ apiKey: "key-from-getApiKey", maxTokens: 100, headers: { "x-trace": "1" } });
    expect(request.hasSignal).toBe(true);
    expect(request.model).toEqual(scripted.model);
    expect(request.model).not.toBe(scripted.model);
  });

  it("numbers requests in call order and keeps earlier records intact", async () => {
    const scripted = createScriptedModel(["a", "b"]);
    expect(scripted.lastRequest()).toBeUndefined();
    await (await scripted.streamFn(scripted.model, { messages: [userMessage("one", { timestamp: 1 })] })).result();
    await (
      await scripted.streamFn(scripted.model, { messages: [userMessage("two", { timestamp: 2 })] }, { apiKey: "k2" })
    ).result();
    expect(scripted.requests.map((request) => request.index)).toEqual([0, 1]);
    expect(scripted.requests.map((request) => requestText(request))).toEqual(["one", "two"]);
    expect(scripted.requests[0].hasSignal).toBe(false);
    expect(scripted.requests[0].options).toEqual({});
    expect(scripted.lastRequest()?.options.apiKey).toBe("k2");
  });

  it("records messages that hold functions by dropping the functions", async () => {
    const scripted = createScriptedModel(["ok"]);
    const odd = { role: "user", content: "hi", timestamp: 1, render: () => "x" } as unknown as Message;
    await (await scripted.streamFn(scripted.model, { messages: [odd] })).result();
    expect(scripted.lastRequest()?.context.messages).toEqual([{ role: "user", content: "hi", timestamp: 1 }]);
  });

  it("records a huge sparse list (length 2^32 - 1, a few entries) at once, its entries kept and its holes left holes", async () => {
    // A host's tool details: a list whose length was set to garbage, beside a function (so structuredClone refuses the
    // message and the recording copies it itself). Walked index by index, the copy crashed the process.
    const list: unknown[] = [];
    list[0] = "first";
    list[3] = { deep: [1, , 3] };
    list.length = 2 ** 32 - 1;
    const result = {
      ...toolResultMessage("c1", "read", "file body"),
      details: { list, render: () => "x" },
    } as unknown as Message;
    const scripted = createScriptedModel(["ok"]);
    await (await scripted.streamFn(scripted.model, { messages: [result] })).result();
    const recorded = (scripted.lastRequest()?.context.messages[0] as unknown as { details: { list: unknown[] } })
      .details;
    expect(recorded).not.toHaveProperty("render");
    expect(recorded.list).not.toBe(list);
    expect(recorded.list.length).toBe(2 ** 32 - 1);
    expect(Object.keys(recorded.list)).toEqual(["0", "3"]);
    expect(recorded.list[3]).toEqual({ deep: [1, , 3] });
    expect(1 in (recorded.list[3] as { deep: unknown[] }).deep).toBe(false);
  });

  it("requestText flattens user and tool-result text, skipping assistant text and images", () => {
    const text = requestText({
      context: {
        messages: [
          userMessage([
            { type: "text", text: "look at" },
            { type: "image", data: "AAAA", mimeType: "image/png" },
            { type: "text", text: "this" },
          ]),
          assistantMessage([toolCall("read", { path: "a" }, { id: "c1" })]),
          assistantMessage("assistant words"),
          toolResultMessage("c1", "read", "file body"),
          userMessage("thanks"),
        ],
      },
    });
    expect(text).toBe("look at\nthis\nfile body\nthanks");
  });
});
