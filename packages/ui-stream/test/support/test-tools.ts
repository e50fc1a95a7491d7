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
