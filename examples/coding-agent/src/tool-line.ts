import type { StreamToolCallChunk } from "@turnkit/protocol";
import { stripAnsi } from "./ansi-style.js";
import { TOOL_PROGRESS_MAX_CHARS, TOOL_RESULT_MAX_CHARS, TOOL_TITLE_MAX_CHARS } from "./defaults.js";

type Args = Record<string, unknown> | undefined;

/**
 * What a tool call is about, in a few words: the path of `read`, `write`
 * and `edit`, the command of `bash`, the pattern of `grep` and `glob`,
 * compact JSON for other tools. Never longer than {@link TOOL_TITLE_MAX_CHARS}.
 */
export function toolTitle(toolName: string, args: Args): string {
  return clip(titleOf(toolName, args ?? {}), TOOL_TITLE_MAX_CHARS);
}

function titleOf(toolName: string, args: Record<string, unknown>): string {
  const str = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  switch (toolName) {
    case "read":
    case "edit":
      return str("path") ?? "";
    case "write": {
      const content = str("content");
      return `${str("path") ?? ""}${content === undefined ? "" : ` (${lineCount(content)} lines)`}`;
    }
    case "bash":
      return oneLine(str("command") ?? "");
    case "grep":
      return `"${str("pattern") ?? ""}"${str("path") ? ` in ${str("path")}` : ""}`;
    case "glob":
      return str("pattern") ?? "";
    case "explore":
      return `"${oneLine(str("task") ?? "")}"`;
    default:
      return oneLine(JSON.stringify(args));
  }
}

/**
 * A short, stable description of a finished call's result: line counts,
 * matches, the edited line, the exit code; for a failed call the error's
 * telling line (`blockedByPermission` says the user refused). Never contains
 * timings, so transcripts compare equal across runs.
 */
export function toolResultSummary(chunk: StreamToolCallChunk, blockedByPermission = false): string {
  const result = chunk.result;
  if (!result) return "";
  const details = (result.details ?? {}) as Record<string, unknown>;
  const num = (key: string) => (typeof details[key] === "number" ? (details[key] as number) : undefined);
  if (chunk.status === "failed" || result.isError) {
    if (blockedByPermission) return "refused by the user";
    return clip(errorLine(chunk.toolName, textOf(result.content)), TOOL_RESULT_MAX_CHARS);
  }
  switch (chunk.toolName) {
    case "read": {
      const total = num("totalLines");
      if (total === undefined) return typeof details.mimeType === "string" ? details.mimeType : "read";
      return details.truncated === true
        ? `lines ${num("startLine")}-${num("endLine")} of ${total}`
        : plural(total, "line");
    }
    case "grep":
      return plural(num("matches") ?? 0, "match", "matches");
    case "glob":
      return plural(num("count") ?? 0, "file");
    case "edit":
      return `line ${num("line")}, -${num("removedLines")} +${num("addedLines")}`;
    case "write":
      return `${details.created === true ? "created" : "wrote"} ${plural(num("bytes") ?? 0, "byte")}`;
    case "bash":
      return `exit ${num("exitCode") ?? "?"}`;
    case "explore":
      // Its answer is shown under the call, as it streamed.
      return "answered";
    default:
      return clip(oneLine(textOf(result.content)), TOOL_RESULT_MAX_CHARS);
  }
}

/** `bash` failures end with "[Command exited with code 1]"; other tools say what failed first. */
function errorLine(toolName: string, text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const line = (toolName === "bash" ? lines.at(-1) : lines[0]) ?? "failed";
  return line.replace(/^\[(.*)\]$/, "$1");
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content.flatMap((block) => (block.type === "text" && block.text !== undefined ? [block.text] : [])).join("\n");
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

function lineCount(text: string): number {
  return text.length === 0 ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ").trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The last non-empty line of a partial tool result's text, shortened; `undefined` when there is none. */
export function lastLineOf(partialResult: unknown): string | undefined {
  const content = (partialResult as { content?: { type: string; text?: string }[] } | undefined)?.content;
  const text = Array.isArray(content)
    ? content.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("\n")
    : "";
  const line = stripAnsi(text)
    .split("\n")
    .map((candidate) => candidate.trim())
    .filter((candidate) => candidate !== "")
    .at(-1);
  if (line === undefined) return undefined;
  return line.length <= TOOL_PROGRESS_MAX_CHARS ? line : `${line.slice(0, TOOL_PROGRESS_MAX_CHARS - 1)}…`;
}
