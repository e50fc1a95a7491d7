// Lists the repository source files on the stack when one model request with default options
// reaches pi-ai's streamSimple (way in), and when its first text delta reaches the event writer
// (way back): the files a reader follows for one request. Run: pnpm --filter @turnkit/bench request-path
// (bench/test/request-path.test.ts keeps the count at 15 or fewer).
import { pathToFileURL } from "node:url";
import { registerApiProvider, type Model } from "@mariozechner/pi-ai";
import { PiTurnRunner } from "@turnkit/agent-core";
import { createScriptedModel } from "@turnkit/agent-core/testing";
import type { TurnOutcome } from "@turnkit/protocol";

/** The files one request passes through, outermost first, as {@link traceRequestPath} found them. */
export interface RequestPath {
  /** How the turn ended (it must complete). */
  outcome: TurnOutcome;
  /** From `runTurn` down to the provider's `streamSimple`. */
  wayIn: string[];
  /** From the turn down to the event writer, as the first text delta reaches it. */
  wayBack: string[];
  /** Every file of both ways, once each. */
  distinct: string[];
}

const root = new URL("../../", import.meta.url).pathname;

/** Repository source files on a stack, innermost first, each once; dependencies and this file left out. */
function files(stack: string): string[] {
  const seen: string[] = [];
  for (const match of stack.matchAll(/(\/[^\s():]+\.ts):\d+/g)) {
    const file = match[1]!.replace(root, "");
    if (file.includes("node_modules") || file.includes("request-path")) continue;
    if (!seen.includes(file)) seen.push(file);
  }
  return seen;
}

/**
 * Runs one turn with default runner options whose model is a registered
 * pi-ai API provider (so the request goes through pi-ai's `streamSimple`),
 * and reads the stack at the provider and at the writer's first text delta.
 * Needs the packages' TypeScript sources (`--conditions=source`) to name them.
 */
export async function traceRequestPath(): Promise<RequestPath> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Infinity;
  try {
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
    const way = { wayIn: wayIn.reverse(), wayBack: (wayBack ?? []).reverse() };
    return { outcome, ...way, distinct: [...new Set([...way.wayIn, ...way.wayBack])] };
  } finally {
    Error.stackTraceLimit = limit;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { outcome, wayIn, wayBack, distinct } = await traceRequestPath();
  console.log(JSON.stringify({ kind: outcome.kind }));
  console.log(`way in (${wayIn.length}):\n  ${wayIn.join("\n  ")}`);
  console.log(`way back (${wayBack.length}):\n  ${wayBack.join("\n  ")}`);
  console.log(`distinct files: ${distinct.length}`);
}
