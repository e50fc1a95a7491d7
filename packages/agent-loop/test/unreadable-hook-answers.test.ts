/**
 * A `beforeToolCall` result or an `afterToolCall` patch one field of which
 * cannot be read (a getter that throws, a proxy's `get` trap): the call's
 * error result names the hook and the field (before, it carried the
 * getter's bare text); every field is read once, so a getter that answers
 * otherwise on a second read is not asked again.
 */
import { describe, expect, it } from "vitest";
import { response, toolCall } from "../src/testing/index.js";
import type { ToolResultMessage } from "@mariozechner/pi-ai";
import { runLoopScenario, testTool } from "./support/scenario.js";

const throwingOn = (field: string, fields: Record<string, unknown>) =>
  new Proxy(fields, {
    get(target, key) {
      if (key === field) throw new Error(`the ${field} service is down`);
      return Reflect.get(target, key);
    },
  });

async function resultOf(config: Parameters<typeof runLoopScenario>[0]["config"]) {
  let runs = 0;
  const run = await runLoopScenario({
    script: [response([toolCall("look")]), "done"],
    tools: [
      testTool("look", { execute: async () => (runs++, { content: [{ type: "text", text: "looked" }], details: {} }) }),
    ],
    config,
  });
  const result = run.messages.find((message): message is ToolResultMessage => message.role === "toolResult")!;
  return { result, runs, text: result.content.map((block) => (block.type === "text" ? block.text : "")).join("") };
}

describe("a tool hook's answer with a field that cannot be read", () => {
  it("beforeToolCall whose block throws: the call is not run, its error result names block", async () => {
    const { result, runs, text } = await resultOf({
      beforeToolCall: async () => throwingOn("block", { block: true, reason: "no" }) as never,
    });
    expect(runs).toBe(0);
    expect(result.isError).toBe(true);
    expect(text).toBe("beforeToolCall returned a result whose block could not be read: the block service is down");
  });

  it("afterToolCall whose content throws: an error result naming content", async () => {
    const { result, runs, text } = await resultOf({
      afterToolCall: async () => throwingOn("content", { content: [] }) as never,
    });
    expect(runs).toBe(1);
    expect(result.isError).toBe(true);
    expect(text).toBe("afterToolCall returned a result whose content could not be read: the content service is down");
  });

  it("afterToolCall's content getter is read once: a second read's other answer is never taken", async () => {
    let reads = 0;
    const patch = {
      get content() {
        reads++;
        return reads === 1 ? [{ type: "text", text: "patched" }] : 7;
      },
    };
    const { result, text } = await resultOf({ afterToolCall: async () => patch as never });
    expect(reads).toBe(1);
    expect(result.isError).toBe(false);
    expect(text).toBe("patched");
  });
});
