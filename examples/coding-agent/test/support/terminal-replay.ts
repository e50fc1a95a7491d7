/**
 * A tiny terminal emulator for tests: replays what a program wrote to a
 * terminal and returns the screen (the whole scrollback) as text. It knows
 * what the renderer uses: printable text with wrapping at `columns`, CR, LF,
 * cursor up (`ESC [ n A`), erase to the end of the screen (`ESC [ J`) and of
 * the line (`ESC [ K`); colours and other sequences are dropped.
 */
export function replayTerminal(output: string, columns = 120): string {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  let pendingWrap = false;
  const ensureRow = (index: number) => {
    while (rows.length <= index) rows.push([]);
  };
  const sequence = /^\x1b\[([0-9;?]*)[ -/]*([@-~])/;
  const chars = [...output];
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index]!;
    if (char === "\x1b") {
      const match = sequence.exec(chars.slice(index, index + 16).join(""));
      if (!match) {
        index += 1;
        continue;
      }
      const count = /^\d+$/.test(match[1]!) ? Number(match[1]) : 1;
      if (match[2] === "A") {
        row = Math.max(0, row - count);
        pendingWrap = false;
      } else if (match[2] === "J") {
        ensureRow(row);
        rows[row] = rows[row]!.slice(0, column);
        rows.splice(row + 1);
      } else if (match[2] === "K") {
        ensureRow(row);
        rows[row] = rows[row]!.slice(0, column);
      }
      index += [...match[0]].length - 1;
      continue;
    }
    if (char === "\r") {
      column = 0;
      pendingWrap = false;
    } else if (char === "\n") {
      row += 1;
      column = 0;
      pendingWrap = false;
      ensureRow(row);
    } else {
      if (pendingWrap) {
        row += 1;
        column = 0;
        pendingWrap = false;
      }
      ensureRow(row);
      const line = rows[row]!;
      while (line.length < column) line.push(" ");
      line[column] = char;
      column += 1;
      if (column >= columns) {
        column = columns - 1;
        pendingWrap = true;
      }
    }
  }
  return rows.map((line) => line.join("").trimEnd()).join("\n");
}
