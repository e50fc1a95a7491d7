/** Text styles of the terminal output; every function returns its input unchanged when colour is off. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) =>
  text === "" ? "" : `\x1b[${open}m${text}\x1b[${close}m`;

const COLOURED: Style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
};

const identity = (text: string) => text;
const PLAIN: Style = {
  bold: identity,
  dim: identity,
  red: identity,
  green: identity,
  yellow: identity,
  cyan: identity,
};

/** The style for `color`. */
export function createStyle(color: boolean): Style {
  return color ? COLOURED : PLAIN;
}

/**
 * Whether to colour: only on a terminal, and never when `NO_COLOR` is set
 * to a non-empty value (https://no-color.org).
 */
export function shouldUseColor(
  isTty: boolean,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  return isTty && !(env.NO_COLOR !== undefined && env.NO_COLOR !== "");
}

// ESC [ ... final byte, and ESC 7 / ESC 8.
const ANSI_SEQUENCE = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[78]/g;

/** `text` without ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_SEQUENCE, "");
}

/** Columns `text` takes on a terminal: code points without escapes (wide characters count as one). */
export function visibleWidth(text: string): number {
  return [...stripAnsi(text)].length;
}
