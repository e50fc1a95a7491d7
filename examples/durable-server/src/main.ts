/*
 * `pnpm start`: an embedded Postgres, two worker processes and the HTTP
 * server on http://127.0.0.1:8787 (PORT overrides it), serving the web
 * chat's build when there is one (examples/web-chat/dist, or WEB_ROOT).
 * Prints a bearer token per demo user. Ctrl+C stops all.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startDurableServer } from "./durable-server.js";

const webRoot = process.env.WEB_ROOT ?? fileURLToPath(new URL("../../web-chat/dist", import.meta.url));
const server = await startDurableServer({
  port: Number(process.env.PORT ?? 8787),
  webRoot: existsSync(webRoot) ? webRoot : undefined,
});
console.log(`durable-server on ${server.url}`);
for (const worker of server.workers()) console.log(`  ${worker.workerId} pid ${worker.pid}`);
for (const [user, token] of Object.entries(server.tokens)) {
  console.log(`  ${user}: Authorization: Bearer ${token}`);
  if (existsSync(webRoot)) console.log(`    web chat: ${server.url}/#token=${token}`);
}
const [token] = Object.values(server.tokens);
console.log(
  `try: curl -s -H 'Authorization: Bearer ${token}' -X POST ${server.url}/sessions/demo/turns -d '{"turnId":"t1","text":"take a note"}'`,
);
const shutdown = () => void server.stop().finally(() => process.exit(0));
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
