import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";

const KM_PER_MILE = 1.609344;

/**
 * A stateless tool written as one object with `defineRuntimeTool`. `input`
 * is typed from `parameters`, so `input.km` is a `number` here. It only
 * computes, so it may run in parallel with the other calls of a response.
 */
export const distanceTool = defineRuntimeTool({
  name: "km_to_miles",
  label: "Kilometres to miles",
  description: "Converts a distance in kilometres to miles.",
  parameters: Type.Object({ km: Type.Number({ minimum: 0 }) }),
  executionMode: "parallel",
  execute: (_ctx, input) => {
    const miles = Math.round((input.km / KM_PER_MILE) * 10) / 10;
    return { content: [{ type: "text", text: `${input.km} km = ${miles} mi` }], details: { miles } };
  },
});
