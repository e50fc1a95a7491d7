import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { STDERR_TAIL_CHARS } from "../src/defaults.js";
import { McpConnection } from "../src/mcp-connection.js";
import { StderrTail } from "../src/stderr-tail.js";
import { validateMcpOptions } from "../src/validate-mcp-options.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";

// A full GC on demand, without starting the test process with --expose-gc.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

const quietEvents = { onListChanged() {}, onResourceUpdated() {}, onLost() {} };

describe("one connection's requests", () => {
  it("a connection keeps nothing of the requests it answered, however many turns it serves", async () => {
    const http = await startHttpFixture();
    const settings = validateMcpOptions({ id: "kept", server: { url: http.url } });
    const connection = await McpConnection.open(
      settings,
      quietEvents,
      new AbortController().signal,
      new StderrTail(STDERR_TAIL_CHARS),
      { roots: undefined },
    );
    try {
      const answers: WeakRef<object>[] = [];
      const callOnce = async (index: number) => {
        const result = await connection.request('tools/call "echo"', 10_000, [], (signal) =>
          connection.client.callTool({ name: "echo", arguments: { text: `call ${index}` } }, undefined, { signal }),
        );
        answers.push(new WeakRef(result));
        return result.content;
      };
      for (let i = 0; i < 20; i++) expect(await callOnce(i)).toEqual([{ type: "text", text: `echo: call ${i}` }]);
      // WeakRefs read in a job keep their target until it ends: collect in later macrotasks.
      await nextMacrotask();
      collectGarbage();
      await nextMacrotask();
      collectGarbage();
      expect(answers.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    } finally {
      await connection.close();
      await http.close();
    }
  });
});
