import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { McpServerError, createMcpExtension, type McpOAuthStore } from "../src/index.js";
import { type HttpFixture, startHttpFixture } from "./fixtures/http-fixture.js";
import { type OAuthFixture, startOAuthFixture } from "./fixtures/oauth-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";
import { connectFailure } from "./support/connect-failure.js";

const REDIRECT = "http://127.0.0.1:1/callback";

/** The host's authorization step, as a browser would take it: follow the authorization URL, read the code off the redirect. */
async function approveInBrowser(url: URL): Promise<string> {
  const answer = await fetch(url, { redirect: "manual" });
  const location = new URL(answer.headers.get("location") ?? "");
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return location.searchParams.get("code") ?? "";
}

async function protectedServer(): Promise<{ http: HttpFixture; oauth: OAuthFixture }> {
  const oauth = await startOAuthFixture();
  const http = await startHttpFixture({
    oauth: { authorizationServer: oauth.url, isValid: (token) => oauth.isValid(token) },
  });
  return { http, oauth };
}

describe("OAuth for a Streamable HTTP server", { timeout: 15_000 }, () => {
  it("authorizes once through the host's callback, then calls with the token and refreshes it when it expires", async () => {
    const { http, oauth } = await protectedServer();
    const asked: URL[] = [];
    const saved: unknown[] = [];
    let stored: { client?: unknown; tokens?: unknown } = {};
    const store: McpOAuthStore = {
      clientInformation: () => stored.client as never,
      saveClientInformation: (client) => void (stored = { ...stored, client }),
      tokens: () => stored.tokens as never,
      saveTokens: (tokens) => {
        saved.push(tokens);
        stored = { ...stored, tokens };
      },
    };
    const mcp = createMcpExtension({
      id: "secured",
      server: {
        url: http.url,
        auth: {
          redirectUrl: REDIRECT,
          scope: "mcp:tools",
          store,
          authorize: (url) => {
            asked.push(url);
            return approveInBrowser(url);
          },
        },
      },
    });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const first = await runMcpTurn({ runtime, script: [response([toolCall("echo", { text: "hi" })]), "Done."] });
    expect(first.toolResults[0]).toMatchObject({ isError: false, text: "echo: hi" });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.origin).toBe(oauth.url);
    expect(asked[0]!.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked[0]!.searchParams.get("scope")).toBe("mcp:tools");
    expect(asked[0]!.searchParams.get("resource")).toBe(http.url);
    expect(oauth.registrations).toBe(1);
    expect(oauth.grants).toEqual(["authorization_code"]);
    expect(saved).toHaveLength(1);

    // The access token expires: the SDK refreshes it with the refresh token, nobody is asked again.
    oauth.expireAccessTokens();
    const second = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("echo", { text: "again" })]), "Done."],
    });
    expect(second.toolResults[0]).toMatchObject({ isError: false, text: "echo: again" });
    expect(asked).toHaveLength(1);
    expect(oauth.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(saved).toHaveLength(2);
    expect(mcp.status.state).toBe("ready");
    await runtime.dispose();
  });

  it("a host that cannot authorize: the connect fails with its reason, the turn runs without the server's tools", async () => {
    const { http } = await protectedServer();
    const mcp = createMcpExtension({
      id: "secured",
      server: {
        url: http.url,
        auth: {
          redirectUrl: REDIRECT,
          authorize: () => {
            throw new Error("the person closed the browser");
          },
        },
      },
      restart: { maxRestarts: 0 },
    });
    const error = await connectFailure(mcp);
    expect(McpServerError.isInstance(error) && error.code).toBe("connect_failed");
    expect((error as Error).message).toMatch(/authorization failed: the person closed the browser/);
    await mcp.dispose();
  });

  it("without auth a protected server refuses the connect with its 401", async () => {
    const { http } = await protectedServer();
    const mcp = createMcpExtension({ id: "secured", server: { url: http.url }, restart: { maxRestarts: 0 } });
    const error = await connectFailure(mcp);
    expect(McpServerError.isInstance(error) && error.code).toBe("connect_failed");
    expect((error as Error).message).toMatch(/401/);
    await mcp.dispose();
  });
});
