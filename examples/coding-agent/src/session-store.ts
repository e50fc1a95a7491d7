import { randomUUID } from "node:crypto";
import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { HistoryChange, HookTurnContext } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { HostError } from "./host-error.js";

/** The first line of a session file. */
export interface SessionHeader {
  type: "session";
  version: 1;
  sessionId: string;
  createdAt: string;
  workspaceDir: string;
  /** `provider:id`, or the scripted model's label. */
  model: string;
}

/** Every later line: one history change of one turn, as `onHistoryChangedHook` delivered it. */
export interface SessionChangeRecord {
  type: "change";
  turnId: string;
  reason: HistoryChange["reason"];
  messages: AgentMessage[];
}

/** One line of a session file. */
export type SessionRecord = SessionHeader | SessionChangeRecord;

/**
 * A session's history, persisted as JSON Lines: a header, then one line per
 * history change. A `messageDelta` appends a line (the file only grows); a
 * `replaceMessages` (compaction) rewrites the file as the header plus one
 * `replaceMessages` line, through a temporary file and a rename, so a crash
 * leaves either the old file or the new one.
 *
 * `onHistoryChanged` is the `onHistoryChangedHook` of every turn: it
 * resolves once the change is on disk, and rejects when the write fails, so
 * the turn fails instead of losing history. `messages` is the history to pass
 * as the next turn's `history`.
 */
export class SessionStore {
  private history: AgentMessage[];
  private turns: number;

  private constructor(
    readonly file: string,
    readonly header: SessionHeader,
    history: AgentMessage[],
    turns: number,
  ) {
    this.history = history;
    this.turns = turns;
  }

  /**
   * Starts a new session file. Throws `HostError` (`session_file`) when the
   * file already exists (resume it instead) or cannot be written.
   */
  static async create(options: {
    file: string;
    workspaceDir: string;
    model: string;
    sessionId?: string;
  }): Promise<SessionStore> {
    const header: SessionHeader = {
      type: "session",
      version: 1,
      sessionId: options.sessionId ?? `session-${randomUUID().slice(0, 8)}`,
      createdAt: new Date().toISOString(),
      workspaceDir: options.workspaceDir,
      model: options.model,
    };
    try {
      await mkdir(path.dirname(options.file), { recursive: true });
      await writeFile(options.file, `${JSON.stringify(header)}\n`, { flag: "wx" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "EEXIST" ? "it already exists (continue it with --resume)" : (error as Error).message;
      throw new HostError("session_file", `cannot start session file ${options.file}: ${why}`, { cause: error });
    }
    return new SessionStore(options.file, header, [], 0);
  }

  /**
   * Loads a session file by replaying its changes. A last line cut off by a
   * crash is ignored; anything else unreadable throws `HostError`
   * (`session_file`) naming the file and line.
   */
  static async open(file: string): Promise<SessionStore> {
    let raw: string;
    try {
      raw = await readFile(file, "utf8");
    } catch (error) {
      throw new HostError("session_file", `cannot read session file ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const lines = raw.split("\n");
    const records: SessionRecord[] = [];
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index]!;
      if (line.trim() === "") continue;
      try {
        records.push(JSON.parse(line) as SessionRecord);
      } catch (error) {
        const isLastLine = lines.slice(index + 1).every((rest) => rest.trim() === "");
        if (isLastLine && index > 0) break;
        throw new HostError("session_file", `session file ${file}, line ${index + 1}: not JSON`, { cause: error });
      }
    }
    const header = records[0];
    if (header?.type !== "session" || header.version !== 1) {
      throw new HostError("session_file", `${file} is not a coding-agent session file (no session header on line 1)`);
    }
    let history: AgentMessage[] = [];
    const turnIds = new Set<string>();
    for (const record of records.slice(1)) {
      if (record.type !== "change" || !Array.isArray(record.messages)) {
        throw new HostError(
          "session_file",
          `session file ${file}: unexpected record ${JSON.stringify(record).slice(0, 80)}`,
        );
      }
      turnIds.add(record.turnId);
      history = record.reason === "replaceMessages" ? [...record.messages] : [...history, ...record.messages];
    }
    return new SessionStore(file, header, history, turnIds.size);
  }

  /** The session's history so far (a copy): the next turn's `history`. */
  get messages(): AgentMessage[] {
    return [...this.history];
  }

  /** How many turns wrote to this session (also across resumes); names the next turn. */
  get turnCount(): number {
    return this.turns;
  }

  /** Marks the start of a turn; returns its id (`turn-1`, `turn-2`, ... continuing after a resume). */
  beginTurn(): string {
    this.turns += 1;
    return `turn-${this.turns}`;
  }

  /** The `onHistoryChangedHook`: applies `change` to memory once it is on disk. Rejects when writing fails. */
  readonly onHistoryChanged = async (change: HistoryChange, context: HookTurnContext): Promise<void> => {
    const record: SessionChangeRecord = {
      type: "change",
      turnId: context.turnId,
      reason: change.reason,
      messages: change.messages,
    };
    if (change.reason === "messageDelta") {
      await appendFile(this.file, `${JSON.stringify(record)}\n`);
      this.history.push(...change.messages);
      return;
    }
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(this.header)}\n${JSON.stringify(record)}\n`);
    await rename(temporary, this.file);
    this.history = [...change.messages];
  };
}
