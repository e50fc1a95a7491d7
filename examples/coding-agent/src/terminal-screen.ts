import { visibleWidth } from "./ansi-style.js";
import { FALLBACK_COLUMNS } from "./defaults.js";

/** Where rendered text goes: a process stream or a test's collector. */
export interface TextSink {
  write(text: string): unknown;
  /** Width in columns, when the sink is a terminal. */
  columns?: number;
}

/**
 * The output surface. Text is written once and stays; on a terminal a
 * "live region" under it (spinners, the input line) is redrawn in place.
 */
export interface Screen {
  /** Appends output; it may end in the middle of a line. */
  write(text: string): void;
  /** Replaces the live lines. Ignored when the screen has no live region. */
  setLive(lines: readonly string[]): void;
  /** True when output is at the start of a line. */
  readonly atLineStart: boolean;
  /** Removes the live region and ends a partial line, leaving the cursor on a fresh line. */
  close(): void;
}

/** A screen that writes straight through: pipes, files, CI logs. */
export function createPlainScreen(out: TextSink): Screen {
  let atLineStart = true;
  return {
    write(text) {
      if (text === "") return;
      out.write(text);
      atLineStart = text.endsWith("\n");
    },
    setLive() {},
    get atLineStart() {
      return atLineStart;
    },
    close() {
      if (!atLineStart) out.write("\n");
      atLineStart = true;
    },
  };
}

/**
 * A terminal screen with a live region. Complete lines are written for good;
 * the unfinished last line of output is drawn as the first live line, above
 * the caller's live lines, so streamed text, spinners and the input line
 * never overwrite each other. Each change erases the live region (cursor up
 * over the rows it took, clear to the end of the screen) and draws it again.
 */
export function createLiveScreen(out: TextSink): Screen {
  let partial = "";
  let live: readonly string[] = [];
  let drawnRows = 0;

  const columns = () => (out.columns && out.columns > 0 ? out.columns : FALLBACK_COLUMNS);
  const rowsOf = (line: string) => Math.max(1, Math.ceil(visibleWidth(line) / columns()));
  const erase = () => (drawnRows === 0 ? "" : `\r${drawnRows > 1 ? `\x1b[${drawnRows - 1}A` : ""}\x1b[J`);
  const draw = () => {
    const lines = partial === "" ? [...live] : [partial, ...live];
    drawnRows = lines.reduce((rows, line) => rows + rowsOf(line), 0);
    return lines.join("\n");
  };
  const render = (committed: string) => {
    out.write(erase() + committed + draw());
  };

  return {
    write(text) {
      if (text === "") return;
      const combined = partial + text;
      const end = combined.lastIndexOf("\n");
      if (end < 0) {
        partial = combined;
        render("");
        return;
      }
      partial = combined.slice(end + 1);
      render(combined.slice(0, end + 1));
    },
    setLive(lines) {
      if (lines.length === live.length && lines.every((line, index) => line === live[index])) return;
      live = [...lines];
      render("");
    },
    get atLineStart() {
      return partial === "";
    },
    close() {
      live = [];
      const rest = partial === "" ? "" : `${partial}\n`;
      partial = "";
      render(rest);
    },
  };
}
