import pg from "pg";

/**
 * A connection of its own to the test database at `url`, for a test's
 * inspections and terminations (`pg_stat_activity`, `pg_terminate_backend`).
 * Its errors are ignored, so a server that ends it (a restart, a cut) does
 * not end the test process; the caller ends it.
 */
export async function connectAdmin(url: string): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: url });
  admin.on("error", () => {});
  await admin.connect();
  return admin;
}

/**
 * Slows every write of a turn's outcome (the update of `turnkit_durable.turns` that sets it) by `seconds`, with a
 * trigger that sleeps (replacing one set before): the ending is then logged while the workflow still records its
 * outcome for that long, the window a shutdown must not hand the turn back in.
 */
export async function slowOutcomeWrites(db: pg.Client, seconds: number): Promise<void> {
  await db.query(`
    CREATE OR REPLACE FUNCTION turnkit_durable.slow_outcome() RETURNS trigger AS $$
    BEGIN PERFORM pg_sleep(${Number(seconds)}); RETURN NEW; END $$ LANGUAGE plpgsql;
    DROP TRIGGER IF EXISTS slow_outcome ON turnkit_durable.turns;
    CREATE TRIGGER slow_outcome BEFORE UPDATE OF outcome ON turnkit_durable.turns FOR EACH ROW
      WHEN (NEW.outcome IS NOT NULL) EXECUTE FUNCTION turnkit_durable.slow_outcome();`);
}
