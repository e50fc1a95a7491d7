/*
 * `pnpm start`: an embedded Postgres, two worker processes and the HTTP
 * server on http://127.0.0.1:8787 (PORT overrides it). Ctrl+C stops all.
 */
import { startDurableServer } from "./durable-server.js";

const server = await startDurableServer({ port: Number(process.env.PORT ?? 8787) });
console.log(`durable-server on ${server.url}`);
for (const worker of server.workers()) console.log(`  ${worker.workerId} pid ${worker.pid}`);
console.log(`try: curl -s -X POST ${server.url}/sessions/demo/turns -d '{"turnId":"t1","text":"take a note"}'`);
const shutdown = () => void server.stop().finally(() => process.exit(0));
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
