import { answerWithTools, type Progress } from "./answer-with-tools.js";
import { DEMO_QUESTION, scriptedDemoModel } from "./scripted-session.js";

/** Runs the host once against the scripted model, printing its progress and answer. */
export async function runHostDemo(print: (line: string) => void): Promise<void> {
  const model = scriptedDemoModel();
  print(`question: ${DEMO_QUESTION}`);
  const show = (progress: Progress) => {
    if (progress.type === "tool") print(`  ${progress.ok ? "✓" : "✗"} ${progress.name} → ${progress.result}`);
    if (progress.type === "retrying") print(`  (retrying in ${(progress.delayMs / 1000).toFixed(1)} s)`);
  };
  const answer = await answerWithTools(DEMO_QUESTION, {
    llm: { model: model.model, streamFn: model.streamFn },
    onProgress: show,
  });
  switch (answer.status) {
    case "answered":
      print(`answer: ${answer.text}`);
      print(`(${answer.toolCalls.length} tool calls, ${model.requests.length} model requests)`);
      return;
    case "cancelled":
      print("cancelled");
      return;
    case "failed":
      print(`failed (${answer.code}): ${answer.userMessage}`);
      return;
  }
}
