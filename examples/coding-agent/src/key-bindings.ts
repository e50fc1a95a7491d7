/** A key as node's `readline.emitKeypressEvents` reports it. */
export interface Keypress {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** What a key means to the interactive session, whatever it is doing. */
export type KeyAction =
  | { type: "insert"; text: string }
  | { type: "backspace" }
  /** Enter: send the line (a task when idle, steering while running). */
  | { type: "submit" }
  /** Alt+Enter: queue the line as a follow-up. */
  | { type: "queue" }
  /** Esc: abort the run. */
  | { type: "escape" }
  /** Ctrl+C: abort the run; twice: exit. */
  | { type: "interrupt" }
  /** Ctrl+D: exit when the line is empty. */
  | { type: "eof" }
  /** Ctrl+U: clear the line. */
  | { type: "clear-line" }
  | { type: "ignore" };

/**
 * Maps one keypress to an action. Pure, so the bindings are testable without
 * a terminal. Alt+Enter arrives as ESC followed by CR (`meta` set); some
 * terminals send LF (`enter`) for Enter, which counts as Enter too.
 */
export function keyAction(text: string | undefined, key: Keypress | undefined): KeyAction {
  const name = key?.name;
  if (key?.ctrl) {
    if (name === "c") return { type: "interrupt" };
    if (name === "d") return { type: "eof" };
    if (name === "u") return { type: "clear-line" };
    return { type: "ignore" };
  }
  if (name === "return" || name === "enter") return key?.meta ? { type: "queue" } : { type: "submit" };
  if (name === "escape") return { type: "escape" };
  if (name === "backspace") return { type: "backspace" };
  if (key?.meta) return { type: "ignore" };
  if (text !== undefined && text.length > 0 && !/[\x00-\x1f\x7f]/.test(text)) return { type: "insert", text };
  return { type: "ignore" };
}
