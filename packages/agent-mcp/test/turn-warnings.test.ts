import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

const warnings = (events: readonly RuntimeEvent[]) =>
  events.flatMap((event) => (event.type === "runtime.warning" ? [event.payload] : []));

describe("a turn that runs without a configured server's tools says so", { timeout: 15_000 }, () => {
  it("an extension_degraded warning at the turn's start names the server, why, and the tools that fail", async () => {
    const closed = await startHttpFixture();
    await closed.close();
    const fixture = stdioFixture();
    const remote = createMcpExtension({ id: "remote", server: { url: closed.url }, restart: { maxRestarts: 0 } });
    const local = createMcpExtension({ id: "local", server: fixture.server, restart: { maxRestarts: 0 } });
    const runtime = await createAgentRuntime({ base: [remote, local] });

    const first = await runMcpTurn({ runtime, script: [response([toolCall("crash", {})]), "It crashed."] });
    expect(warnings(first.events)).toEqual([
      {
        code: "extension_degraded",
        extensionId: "remote",
        message: expect.stringMatching(
          /^MCP server "remote" could not connect: could not be reached for initialize: fetch failed \(.*ECONNREFUSED.*\); the turn runs without its tools$/,
        ),
        tools: [],
      },
    ]);
    expect(first.events.slice(0, 2).map((event) => event.type)).toEqual(["session.status", "runtime.warning"]);

    const second = await runMcpTurn({ runtime, turnId: "t2", script: ["Nothing works."] });
    const [, fromLocal] = warnings(second.events);
    expect(warnings(second.events).map((warning) => (warning as { extensionId: string }).extensionId)).toEqual([
      "remote",
      "local",
    ]);
    expect(fromLocal).toMatchObject({
      code: "extension_degraded",
      message: `MCP server "local" is not running and will not be restarted (0 of 0 restarts in a row used); it exited (its last stderr line: fixture: crashing on purpose); calls to its ${local.status.tools.length} tools fail this turn`,
      tools: local.status.tools.map((tool) => tool.name),
    });
    expect(local.status.tools.length).toBeGreaterThan(10);
    await runtime.dispose();
  });
});
