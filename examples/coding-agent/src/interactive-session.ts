import { emitKeypressEvents } from "node:readline";
import type { RuntimeEvent } from "@turnkit/protocol";
import type { CodingAgentHost, TurnReport } from "./agent-host.js";
import { keyAction, type KeyAction, type Keypress } from "./key-bindings.js";
import type { ModelChoice } from "./model-choice.js";
import type { AskPermission, PermissionRequest } from "./permission-extension.js";
import { permissionQuestion, type Renderer } from "./renderer.js";
import type { ScriptedModelChoice, ScriptedUser } from "./scripted-session.js";
import { createScriptedTypist } from "./scripted-typist.js";

/** The terminal the session reads keys from. */
export interface KeyInput {
  setRawMode?(mode: boolean): unknown;
  on(event: "keypress", listener: (text: string | undefined, key: Keypress | undefined) => void): unknown;
  off(event: "keypress", listener: (text: string | undefined, key: Keypress | undefined) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** Options of {@link InteractiveSession}. */
export interface InteractiveSessionOptions {
  input: KeyInput;
  renderer: Renderer;
  model: ModelChoice | ScriptedModelChoice;
  /** Plays this scripted user's task (and its steering, unless the user steers first) right away. */
  autoplay?: ScriptedUser;
}

const QUEUE_PREFIX = "/queue ";

type Mode = "idle" | "running" | "asking" | "closed";

interface PendingQuestion {
  request: PermissionRequest;
  resolve(allowed: boolean): void;
}

/**
 * The terminal UI: a line editor in raw mode on top of the renderer's live
 * region. Idle, Enter runs the line as a task. While a turn runs, Enter
 * sends the line as steering, Alt+Enter (or a `/queue ` prefix) queues it as
 * a follow-up, Esc or Ctrl+C aborts the turn; a second Ctrl+C exits. A
 * permission question takes the keyboard until it is answered with y or n.
 * Follow-ups, and steering that arrived too late for its turn, run as the
 * next turns.
 */
export class InteractiveSession {
  /** Every turn run so far, in order. */
  readonly reports: TurnReport[] = [];
  /** Give it every `RuntimeEvent` (the host's writer does): the autoplay typist watches them. */
  onEvent: (event: RuntimeEvent) => void = () => {};
  private mode: Mode = "idle";
  private line = "";
  private interruptArmed = false;
  private controller: AbortController | undefined;
  private question: PendingQuestion | undefined;
  private questions: Promise<unknown> = Promise.resolve();
  private userSteered = false;
  private host: CodingAgentHost | undefined;
  private finish: ((code: number) => void) | undefined;
  /** The task loop, while one runs: exiting waits for its aborted turn to settle. */
  private tasks: Promise<void> | undefined;

  constructor(private readonly options: InteractiveSessionOptions) {}

  /** Asks in the terminal; one question at a time, answered `false` when the turn is aborted meanwhile. */
  readonly askPermission: AskPermission = (request, signal) => {
    const asked = this.questions.then(() => this.ask(request, signal));
    this.questions = asked.catch(() => undefined);
    return asked;
  };

  /** Runs until the user exits; resolves with the exit code. */
  run(host: CodingAgentHost): Promise<number> {
    this.host = host;
    const { input, renderer } = this.options;
    emitKeypressEvents(input as NodeJS.ReadableStream);
    input.setRawMode?.(true);
    input.on("keypress", this.onKey);
    input.resume();
    renderer.notice(
      "Enter runs a task · while it runs: Enter steers, Alt+Enter or /queue queues, Esc aborts · Ctrl+C twice or Ctrl+D exits",
    );
    const done = new Promise<number>((resolve) => {
      this.finish = resolve;
    });
    if (this.options.autoplay) this.startTasks(this.options.autoplay.task, this.options.autoplay);
    else this.showPrompt();
    return done;
  }

  private readonly onKey = (text: string | undefined, key: Keypress | undefined) => {
    const action = keyAction(text, key);
    if (action.type !== "interrupt" && action.type !== "ignore") this.interruptArmed = false;
    switch (this.mode) {
      case "asking":
        return this.onQuestionKey(action);
      case "running":
        return this.onRunningKey(action);
      case "idle":
        return this.onIdleKey(action);
      case "closed":
        return;
      default: {
        const unknown: never = this.mode;
        return unknown;
      }
    }
  };

  private onIdleKey(action: KeyAction): void {
    switch (action.type) {
      case "submit":
      case "queue": {
        const text = this.takeLine();
        if (text === "/exit" || text === "/quit") return this.exit();
        const task = text.startsWith(QUEUE_PREFIX) ? text.slice(QUEUE_PREFIX.length) : text;
        if (task.trim() === "") return this.showPrompt();
        return this.startTasks(task.trim());
      }
      case "interrupt":
        if (this.line !== "") {
          this.line = "";
          return this.showPrompt();
        }
        if (this.interruptArmed) return this.exit();
        this.interruptArmed = true;
        this.options.renderer.notice("(press Ctrl+C again or Ctrl+D to exit)");
        return this.showPrompt();
      case "eof":
        if (this.line === "") return this.exit();
        return;
      case "escape":
        return;
      default:
        return this.edit(action);
    }
  }

  private onRunningKey(action: KeyAction): void {
    const { renderer } = this.options;
    const host = this.host!;
    switch (action.type) {
      case "submit": {
        const text = this.takeLine().trim();
        if (text === "") return this.showPrompt();
        if (text.startsWith(QUEUE_PREFIX.trim())) {
          const followUp = text.slice(QUEUE_PREFIX.trim().length).trim();
          host.inbox.queueFollowUp(followUp);
          renderer.userInput("follow-up", followUp);
        } else {
          this.userSteered = true;
          host.inbox.steer(text);
          renderer.userInput("steering", text);
        }
        return this.showPrompt();
      }
      case "queue": {
        const text = this.takeLine().trim();
        if (text !== "") {
          host.inbox.queueFollowUp(text);
          renderer.userInput("follow-up", text);
        }
        return this.showPrompt();
      }
      case "escape":
        return this.abortRun();
      case "interrupt":
        if (this.interruptArmed) return this.exit();
        this.interruptArmed = true;
        return this.abortRun();
      case "eof":
        return;
      default:
        return this.edit(action);
    }
  }

  private onQuestionKey(action: KeyAction): void {
    if (action.type === "insert" && /^[yn]$/i.test(action.text)) return this.answer(action.text.toLowerCase() === "y");
    if (action.type === "escape" || action.type === "interrupt") {
      if (action.type === "interrupt") this.interruptArmed = true;
      this.answer(false);
      return this.abortRun();
    }
  }

  private edit(action: KeyAction): void {
    switch (action.type) {
      case "insert":
        this.line += action.text;
        break;
      case "backspace":
        this.line = [...this.line].slice(0, -1).join("");
        break;
      case "clear-line":
        this.line = "";
        break;
      default:
        return;
    }
    this.showPrompt();
  }

  private takeLine(): string {
    const text = this.line;
    this.line = "";
    return text;
  }

  private showPrompt(): void {
    const { renderer } = this.options;
    switch (this.mode) {
      case "idle":
        renderer.setInputLine(`› ${this.line}`);
        return;
      case "running":
        renderer.setInputLine(this.line === "" ? "steer › " : `steer › ${this.line}`);
        return;
      case "asking":
        renderer.setInputLine(`  ${permissionQuestion(this.question!.request)} `);
        return;
      case "closed":
        renderer.setInputLine(undefined);
        return;
    }
  }

  private startTasks(first: string, scriptedUser?: ScriptedUser): void {
    const tasks = this.runTasks(first, scriptedUser).finally(() => {
      if (this.tasks === tasks) this.tasks = undefined;
    });
    this.tasks = tasks;
  }

  /** Runs `first`, then every follow-up, each as one turn. */
  private async runTasks(first: string, scriptedUser?: ScriptedUser): Promise<void> {
    const { renderer, model } = this.options;
    const host = this.host!;
    let task: string | undefined = first;
    while (task !== undefined && this.mode !== "closed") {
      this.mode = "running";
      this.userSteered = false;
      this.controller = new AbortController();
      renderer.userInput("task", task);
      this.showPrompt();
      this.onEvent = scriptedUser
        ? createScriptedTypist(scriptedUser, (text) => {
            if (this.userSteered) return;
            host.inbox.steer(text);
            renderer.userInput("steering", `${text}  (typed by the demo)`);
          })
        : () => {};
      const report = await host.runTurn(task, this.controller.signal);
      this.reports.push(report);
      scriptedUser = undefined;
      this.onEvent = () => {};
      if ("endScript" in model) model.endScript();
      renderer.summary({ showCost: model.hasPrices });
      if (this.isClosed()) return;
      if (report.outcome.kind === "aborted") {
        const dropped = host.inbox.clear();
        if (dropped > 0) renderer.notice(`(dropped ${dropped} queued message${dropped === 1 ? "" : "s"})`);
        task = undefined;
      } else {
        task = host.inbox.takeNextTask();
      }
    }
    this.controller = undefined;
    if (this.isClosed()) return;
    this.mode = "idle";
    this.showPrompt();
  }

  private ask(request: PermissionRequest, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted || this.mode === "closed") return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = () => this.answer(false);
      signal.addEventListener("abort", onAbort, { once: true });
      this.question = {
        request,
        resolve: (allowed) => {
          signal.removeEventListener("abort", onAbort);
          resolve(allowed);
        },
      };
      this.mode = "asking";
      this.showPrompt();
    });
  }

  private answer(allowed: boolean): void {
    const question = this.question;
    if (!question) return;
    this.question = undefined;
    if (this.mode === "asking") this.mode = "running";
    this.options.renderer.permissionAnswered(question.request, allowed);
    question.resolve(allowed);
    this.showPrompt();
  }

  private abortRun(): void {
    if (this.controller && !this.controller.signal.aborted) {
      this.options.renderer.notice("(aborting…)");
      this.controller.abort();
    }
    this.showPrompt();
  }

  /** A method, not a field read, because the mode changes while a turn is awaited. */
  private isClosed(): boolean {
    return this.mode === "closed";
  }

  private exit(): void {
    if (this.mode === "closed") return;
    this.answer(false);
    this.controller?.abort();
    this.mode = "closed";
    const { input, renderer } = this.options;
    input.off("keypress", this.onKey);
    input.setRawMode?.(false);
    input.pause();
    renderer.setInputLine(undefined);
    // A turn being aborted still writes its last events and history: let it.
    void (this.tasks ?? Promise.resolve()).then(() => this.finish?.(0));
  }
}
