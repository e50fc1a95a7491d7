import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";

/** Echoes its `value` as `echo <value>`, with its length in the details. */
export const echo = defineRuntimeTool({
  name: "echo",
  description: "Echoes its input",
  parameters: Type.Object({ value: Type.String() }),
  execute: (_ctx, { value }) => ({
    content: [{ type: "text", text: `echo ${value}` }],
    details: { length: value.length },
  }),
});

/** Throws "disk on fire" on every call. */
export const broken = defineRuntimeTool({
  name: "broken",
  description: "Always throws",
  parameters: Type.Object({}),
  execute: () => {
    throw new Error("disk on fire");
  },
});

/** Runs until the turn is aborted, then rejects with "stopped". */
export const slow = defineRuntimeTool({
  name: "slow",
  description: "Waits for the abort",
  parameters: Type.Object({}),
  execute: (_ctx, _input, signal) =>
    new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
});

/** Asks the person which branch (an elicitation) and answers with the kind of answer it got. */
export const asking = defineRuntimeTool({
  name: "deploy",
  description: "Asks which branch",
  parameters: Type.Object({}),
  execute: async (ctx) => {
    const outcome = await ctx.askHost!({
      kind: "elicitation",
      message: "Which branch?",
      requestedSchema: { type: "object", properties: { branch: { type: "string" } } },
      serverName: "deploy",
    });
    return { content: [{ type: "text", text: outcome.kind }] };
  },
});
