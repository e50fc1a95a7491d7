import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * A fresh database on the server of `templateUrl`, copied from that
 * template database (which nobody may be connected to), or an empty one
 * with `empty`; `drop()` deletes it again. Safe to call from many processes
 * at once. `drop()` first gives the database's connections up to 2 s to
 * close on their own, then ends those still open.
 */
export async function copyTemplateDatabase(
  templateUrl: string,
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const template = new URL(templateUrl);
  const templateName = decodeURIComponent(template.pathname.slice(1));
  const name = `turnkit_${process.pid}_${randomBytes(4).toString("hex")}`;
  const adminUrl = new URL(templateUrl);
  adminUrl.pathname = "/postgres";
  await withAdmin(adminUrl.href, async (admin) => {
    // Copies from one template may not overlap on some servers ("source database is being accessed"): try again.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(
          options.empty
            ? `CREATE DATABASE "${name}"`
            : `CREATE DATABASE "${name}" TEMPLATE "${templateName}" STRATEGY FILE_COPY`,
        );
        return;
      } catch (error) {
        if (attempt >= 20 || (error as { code?: string }).code !== "55006") throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  });
  const url = new URL(templateUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.href,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await withAdmin(adminUrl.href, async (admin) => {
        // node-postgres's pool.end() resolves before its connections have closed: forcing the drop while one is still
        // closing ends it with an error that a pool without an "error" listener throws as an uncaught exception in
        // the test's process. So the drop waits (up to 2 s) for the database's connections to leave on their own.
        for (let waited = 0; waited < 2_000; waited += 25) {
          const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [
            name,
          ]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }).catch(() => {});
    },
  };
}

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}
