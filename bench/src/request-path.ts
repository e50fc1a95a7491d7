// Lists the repository source files on the stack when one model request with default options
// reaches pi-ai's streamSimple (way in), and when its first text delta reaches the event writer
// (way back): the files a reader follows for one request. Run: pnpm --filter @turnkit/bench request-path
import { registerApiProvider, type Model } from "@mariozechner/pi-ai";
import { PiTurnRunner } from "@turnkit/agent-core";
import { createScriptedModel } from "@turnkit/agent-core/testing";

Error.stackTraceLimit = Infinity;
const root = new URL("../../", import.meta.url).pathname;
const files = (stack: string) => {
  const seen: string[] = [];
  for (const match of stack.matchAll(/(\/[^\s():]+\.ts):\d+/g)) {
    const file = match[1].replace(root, "");
    if (file.includes("node_modules") || file.includes("request-path")) continue;
    if (!seen.includes(file)) seen.push(file);
  }
  return seen;
};
const scripted = createScriptedModel(["Hello there."]);
let wayIn: string[] = [];
registerApiProvider({
  api: "trace-api" as any,
  stream: (model: any, context: any, options: any) => scripted.streamFn(model, context, options) as any,
  streamSimple: (model: any, context: any, options: any) => {
    wayIn = files(new Error().stack ?? "");
    return scripted.streamFn(model, context, options) as any;
  },
});
let wayBack: string[] | undefined;
const outcome = await new PiTurnRunner().runTurn({
  sessionId: "s",
  turnId: "t",
  systemPrompt: "You answer.",
  userMessage: { text: "Hi" },
  llm: { model: { ...scripted.model, api: "trace-api" } as Model<any> },
  eventWriter: {
    push(event: any) {
      if (!wayBack && event.type === "stream.resp" && event.payload.chunk.kind === "text")
        wayBack = files(new Error().stack ?? "");
    },
  },
} as any);
console.log(JSON.stringify(outcome));
console.log(`way in (${wayIn.length}):\n  ${wayIn.reverse().join("\n  ")}`);
console.log(`way back (${wayBack?.length}):\n  ${(wayBack ?? []).reverse().join("\n  ")}`);
const all = [...new Set([...wayIn, ...(wayBack ?? [])])];
console.log(`distinct files: ${all.length}`);
