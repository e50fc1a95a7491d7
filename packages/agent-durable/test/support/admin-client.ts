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
