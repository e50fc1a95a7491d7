import { TurnkitConfigError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import {
  type ExtensionAPI,
  ExtensionContributionError,
  createAgentRuntime,
  createToolExtension,
} from "../src/index.js";
import { echoTool, extension, rejected, thrown } from "./fixtures.js";

describe("dispose: extensions release what they hold", () => {
  it("runs every handler once, in reverse extension and registration order, enabled or not", async () => {
    const calls: string[] = [];
    const runtime = await createAgentRuntime({
      base: [
        extension("first", (api) => {
          api.onDispose(() => void calls.push("first:a"));
          api.onDispose(async () => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            calls.push("first:b");
          });
        }),
        createToolExtension({ id: "no-handlers", tools: [echoTool("echo")] }),
        extension("second", (api) => api.onDispose(() => void calls.push("second"))),
      ],
    });
    runtime.setEnabled("second", false);
    const first = runtime.dispose();
    expect(runtime.dispose()).toBe(first);
    await first;
    await runtime.dispose();
    expect(calls).toEqual(["second", "first:b", "first:a"]);
  });

  it("a failing handler does not stop the others; dispose then rejects naming the extension", async () => {
    const calls: string[] = [];
    const runtime = await createAgentRuntime({
      base: [
        extension("kept", (api) => api.onDispose(() => void calls.push("kept"))),
        extension("broken", (api) =>
          api.onDispose(() => {
            throw new Error("socket already gone");
          }),
        ),
      ],
    });
    const error = await rejected(runtime.dispose());
    expect(ExtensionContributionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "extension_contribution_failed",
      extensionId: "broken",
      contribution: "dispose",
    });
    expect(error.message).toBe('extension "broken": dispose handler failed: socket already gone');
    expect(calls).toEqual(["kept"]);
  });

  it("when an init fails, the handlers registered so far run before createAgentRuntime rejects", async () => {
    const calls: string[] = [];
    const error = await rejected(
      createAgentRuntime({
        base: [
          extension("started", (api) => api.onDispose(() => void calls.push("started"))),
          extension("failing", (api) => {
            api.onDispose(() => void calls.push("failing"));
            throw new Error("no config");
          }),
          extension("never", (api) => api.onDispose(() => void calls.push("never"))),
        ],
      }),
    );
    expect(error.code).toBe("extension_init");
    expect(calls).toEqual(["failing", "started"]);
  });

  it("onDispose works only inside init and only with a function", async () => {
    let captured: ExtensionAPI | undefined;
    const error = await rejected(
      createAgentRuntime({ base: [extension("bad", (api) => api.onDispose("close" as never))] }),
    );
    expect(error.message).toContain(
      'extension "bad": api.onDispose(): the dispose handler must be a function, got string',
    );
    await createAgentRuntime({ base: [extension("late", (api) => void (captured = api))] });
    const late = thrown(() => captured!.onDispose(() => {}));
    expect(TurnkitConfigError.isInstance(late)).toBe(true);
    expect(late.message).toContain('extension "late": api.onDispose() was called outside its init window');
  });
});
