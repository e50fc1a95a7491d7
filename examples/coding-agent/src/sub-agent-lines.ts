import type { EventOrigin, RuntimeEvent } from "@turnkit/protocol";
import type { Style } from "./ansi-style.js";
import { toolResultSummary, toolTitle } from "./tool-line.js";
import { emptyTurnStats, formatDuration, formatTurnSummary, readTurnEvent, type TurnStats } from "./turn-stats.js";

/** What {@link createSubAgentLines} needs of the renderer. */
export interface SubAgentLinesOptions {
  style: Style;
  /** Prints one line of the transcript. */
  line: (text: string) => void;
  /** The title of the turn's running tool call `toolCallId` (the call that started a sub-agent), if it runs. */
  callTitle: (toolCallId: string) => string | undefined;
}

/**
 * The transcript lines of sub-agents: every event with an `origin`,
 * indented under the call that started its sub-agent, one level per
 * sub-agent. A sub-agent's start names it (and its task), each of its tool
 * calls gets a line when it finishes, its answer a line when its message
 * ends, and its end a summary line of its own (steps, tool calls, tokens,
 * cost when it has one, time), from its terminal status.
 */
export function createSubAgentLines(options: SubAgentLinesOptions) {
  const { style, line } = options;
  /** Running sub-agent turns by turn id: their own stats and the text of their messages so far. */
  const subAgents = new Map<string, { stats: TurnStats; texts: Map<string, string> }>();

  const handle = (event: RuntimeEvent, origin: EventOrigin): void => {
    const depth = origin.path.length;
    const agent = origin.path[depth - 1]!.agent;
    const indent = "  ".repeat(depth + 1);
    let child = subAgents.get(origin.turnId);
    if (!child) {
      child = { stats: emptyTurnStats(), texts: new Map() };
      subAgents.set(origin.turnId, child);
    }
    readTurnEvent(child.stats, event);
    if (event.type === "session.status") {
      const { payload } = event;
      if (payload.status === "running") {
        const title = depth === 1 ? options.callTitle(origin.toolCallId) : undefined;
        line(style.cyan(`${"  ".repeat(depth)}↳ ${agent}${title ? ` ${title}` : ""}`));
        return;
      }
      subAgents.delete(origin.turnId);
      const how = payload.status === "failed" ? `failed (${payload.error.code})` : payload.status;
      const showCost = (child.stats.usage?.total.cost.total ?? 0) > 0;
      line(style.dim(`${indent}└ ${agent} ${how} · ${formatTurnSummary(child.stats, { showCost })}`));
      return;
    }
    if (event.type !== "stream.resp") return;
    const { messageId, chunk } = event.payload;
    if (chunk.kind === "text") {
      child.texts.set(messageId, (child.texts.get(messageId) ?? "") + chunk.delta);
    } else if (chunk.kind === "finish") {
      const text = child.texts.get(messageId)?.trim();
      if (text) line(`${indent}${text.replace(/\s*\n\s*/g, " ")}`);
    } else if (chunk.kind === "tool_call" && (chunk.status === "finished" || chunk.status === "failed")) {
      const mark = chunk.status === "finished" ? style.green("✓") : style.red("✗");
      const parts = [toolTitle(chunk.toolName, chunk.arguments), toolResultSummary(chunk)].filter(
        (part) => part !== "",
      );
      const duration = chunk.durationMs !== undefined ? style.dim(` · ${formatDuration(chunk.durationMs)}`) : "";
      line(`${indent}${mark} ${style.bold(chunk.toolName)} ${parts.join(" · ")}${duration}`);
    }
  };

  return {
    /** Prints what one sub-agent event adds to the transcript. */
    handle,
    /** Forgets every sub-agent (a new turn starts). */
    clear: () => subAgents.clear(),
  };
}
