import pg from "pg";

/** A chat session as its owner lists it. */
export interface SessionSummary {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

/** A turn of a session, in start order. */
export interface SessionTurn {
  turnId: string;
  /** The user's message that started it. */
  text: string;
}

/**
 * Who owns which session, and the turns started in each: the example's
 * own two tables (schema `durable_server`) next to the durable turns.
 * `@turnkit/agent-durable` addresses turns by session and turn id and
 * knows nothing of users; this store is what makes a session one user's.
 */
export class SessionStore {
  private constructor(private readonly pool: pg.Pool) {}

  /** Connects and creates the tables when missing. */
  static async connect(databaseUrl: string): Promise<SessionStore> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
    pool.on("error", () => {});
    try {
      await pool.query(`
        CREATE SCHEMA IF NOT EXISTS durable_server;
        CREATE TABLE IF NOT EXISTS durable_server.sessions (
          session_id text PRIMARY KEY,
          owner text NOT NULL,
          title text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX IF NOT EXISTS sessions_by_owner ON durable_server.sessions (owner, updated_at DESC);
        CREATE TABLE IF NOT EXISTS durable_server.turns (
          session_id text NOT NULL REFERENCES durable_server.sessions,
          turn_id text NOT NULL,
          text text NOT NULL,
          position bigserial,
          PRIMARY KEY (session_id, turn_id)
        );`);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new SessionStore(pool);
  }

  /**
   * The session's owner after making `owner` the owner of a session that
   * did not exist yet (titled `title`). A session of another user keeps
   * its owner: compare the answer with the caller.
   */
  async claim(sessionId: string, owner: string, title: string): Promise<string> {
    const { rows } = await this.pool.query(
      `WITH created AS (
         INSERT INTO durable_server.sessions (session_id, owner, title) VALUES ($1, $2, $3)
         ON CONFLICT (session_id) DO NOTHING RETURNING owner)
       SELECT owner FROM created UNION ALL SELECT owner FROM durable_server.sessions WHERE session_id = $1`,
      [sessionId, owner, title.slice(0, 80)],
    );
    return rows[0].owner;
  }

  /** The owner of a session, or `undefined` when there is no such session. */
  async ownerOf(sessionId: string): Promise<string | undefined> {
    // Postgres text holds no U+0000, so no session has such an id (and the query would fail).
    if (sessionId.includes("\u0000")) return undefined;
    const { rows } = await this.pool.query("SELECT owner FROM durable_server.sessions WHERE session_id = $1", [
      sessionId,
    ]);
    return rows[0]?.owner;
  }

  /** Records a turn started in a session (again: a no-op) and marks the session as just used. */
  async addTurn(sessionId: string, turnId: string, text: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO durable_server.turns (session_id, turn_id, text) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING;`,
      [sessionId, turnId, text],
    );
    await this.pool.query("UPDATE durable_server.sessions SET updated_at = now() WHERE session_id = $1", [sessionId]);
  }

  /** The turns of a session in start order. */
  async turns(sessionId: string): Promise<SessionTurn[]> {
    const { rows } = await this.pool.query(
      "SELECT turn_id, text FROM durable_server.turns WHERE session_id = $1 ORDER BY position",
      [sessionId],
    );
    return rows.map((row) => ({ turnId: row.turn_id, text: row.text }));
  }

  /**
   * A user's sessions, the most recently used first, `limit` of them after
   * the cursor `after` (the `next` of an earlier page; `undefined` or not one
   * of ours starts at the top). `next` is absent on the last page.
   */
  async sessionsOf(
    owner: string,
    page: { limit: number; after?: string },
  ): Promise<{ sessions: SessionSummary[]; next?: string }> {
    const cursor = decodeCursor(page.after);
    const { rows } = await this.pool.query(
      `SELECT session_id, title, created_at, updated_at, updated_at::text AS updated_key FROM durable_server.sessions
       WHERE owner = $1 AND ($2::text IS NULL OR (updated_at, session_id) < ($2::timestamptz, $3::text))
       ORDER BY updated_at DESC, session_id DESC LIMIT $4`,
      [owner, cursor?.[0] ?? null, cursor?.[1] ?? null, page.limit + 1],
    );
    const shown = rows.slice(0, page.limit);
    const last = shown[shown.length - 1];
    return {
      sessions: shown.map((row) => ({
        sessionId: row.session_id,
        title: row.title,
        createdAt: row.created_at.toISOString(),
        updatedAt: row.updated_at.toISOString(),
      })),
      ...(rows.length > page.limit &&
        last && { next: Buffer.from(JSON.stringify([last.updated_key, last.session_id])).toString("base64url") }),
    };
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The `[updated_at, session_id]` of a page cursor, or `undefined` for none or one that is not ours. */
function decodeCursor(after: string | undefined): [string, string] | undefined {
  if (after === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(after, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === "string")) {
      const [time, sessionId] = value as [string, string];
      if (/^\d{4}-\d{2}-\d{2} [\d:.]+[+-]\d{2}(:\d{2})?$/.test(time)) return [time, sessionId];
    }
  } catch {
    // not a cursor of ours: from the top
  }
  return undefined;
}
