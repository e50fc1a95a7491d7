import type { Model } from "@mariozechner/pi-ai";
import type { StreamFn } from "@turnkit/agent-core";
import {
  createScriptedModel,
  requestText,
  response,
  usageOf,
  type RecordedRequest,
  type ScriptedModel,
  type ScriptedResponse,
  type TimerClock,
} from "@turnkit/agent-loop/testing";
import { SCRIPTED_SUMMARY_MODEL_ID } from "./defaults.js";

/** The scripted model that writes the demo's compaction summaries. */
export interface ScriptedSummariser {
  /** Its model (id {@link SCRIPTED_SUMMARY_MODEL_ID}): the compaction extension's `summaryModel`. */
  model: Model<any>;
  /** Answers every request it is sent with a summary of it. */
  streamFn: StreamFn;
  /** Its requests, for tests. */
  scriptedModel: ScriptedModel;
}

/**
 * A stand-in for a cheap summary model: reads the conversation the
 * compaction extension sends as text (`[User]: …`, `[Tool call] name
 * {arguments}` lines) and answers with what the user asked, which tools ran
 * and which files changed. A real model writes a better summary; this one
 * is deterministic, so the demo's transcript is.
 */
export function createScriptedSummariser(options: { eventDelayMs: number; clock?: TimerClock }): ScriptedSummariser {
  const scriptedModel = createScriptedModel([], {
    ...options,
    model: { id: SCRIPTED_SUMMARY_MODEL_ID, name: "Scripted summariser" },
  });
  return {
    model: scriptedModel.model,
    streamFn: (model, context, streamOptions) => {
      if (scriptedModel.remaining() === 0) scriptedModel.append(summarise);
      return scriptedModel.streamFn(model, context, streamOptions);
    },
    scriptedModel,
  };
}

function summarise(request: RecordedRequest): ScriptedResponse {
  const asked = requestText(request);
  const conversation = asked.slice(asked.indexOf("<conversation>"), asked.indexOf("</conversation>"));
  const requests: string[] = [];
  const tools = new Map<string, number>();
  const changed = new Set<string>();
  for (const line of conversation.split("\n")) {
    const user = /^\[User\]: (.*)$/.exec(line);
    if (user) requests.push(`"${user[1]!.slice(0, 120)}"`);
    const call = /^\[Tool call\] (\S+) (.*)$/.exec(line);
    if (!call) continue;
    const [, name, args] = call as unknown as [string, string, string];
    tools.set(name, (tools.get(name) ?? 0) + 1);
    if (name === "edit" || name === "write") {
      const path = /"path":"([^"]*)"/.exec(args)?.[1];
      if (path) changed.add(path);
    }
  }
  const toolList = [...tools].map(([name, count]) => `${name} ×${count}`).join(", ") || "none";
  const text = [
    `- the user asked: ${requests.join("; ") || "nothing"}`,
    `- tools used: ${toolList}`,
    `- files changed: ${[...changed].join(", ") || "none"}`,
  ].join("\n");
  return response(text, { usage: usageOf(Math.ceil(asked.length / 4), Math.ceil(text.length / 4)) });
}
