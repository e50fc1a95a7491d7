import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import {
  type EmbeddedServer,
  type EmbeddedServerOptions,
  startEmbeddedServer,
} from "../../src/testing/embedded-server.js";
import { WorkerCluster } from "./worker-cluster.js";

/** A test file's own Postgres (one it may restart or crash), its database and its worker processes. */
export interface OwnServer {
  server: EmbeddedServer;
  url: string;
  cluster: WorkerCluster;
}

/**
 * Starts, before the file's tests, a Postgres of the file's own (not the
 * shared one: the tests restart or crash it) with one database named
 * `name`, and a {@link WorkerCluster} on it; stops the workers, the server
 * and the scratch folder after them. The fields are set once the tests run.
 */
export function useOwnServer(name: string, options: EmbeddedServerOptions): OwnServer {
  const own = {} as OwnServer;
  let scratch: string | undefined;
  beforeAll(async () => {
    own.server = await startEmbeddedServer(options);
    await own.server.createDatabase(name);
    own.url = own.server.urlOf(name);
    scratch = mkdtempSync(join(tmpdir(), `turnkit-durable-${name}-`));
    own.cluster = new WorkerCluster(own.url, join(scratch, "counts.jsonl"));
  }, 60_000);
  afterAll(async () => {
    await own.cluster?.stopWorkers();
    await own.server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 60_000);
  return own;
}
