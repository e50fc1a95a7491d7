import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { streamProxy } from "../../src/index.js";
import { PROXY_STREAM_PATH } from "../../src/proxy-server/index.js";
import { createScriptedModel } from "../../src/testing/index.js";
import { collect, contextOf, GOOD_TOKEN, startProxyServer, type TestProxyServer } from "./proxy-test-server.js";

/**
 * Starts an upload that announces 1 MiB (well under the default
 * `maxBodyBytes`), sends 64 KiB of it and then nothing more: a server that
 * read the body before deciding would never answer. Resolves with the
 * status and body of the answer.
 */
function partialUpload(url: string, authorization?: string): Promise<{ status: number; body: any }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: PROXY_STREAM_PATH,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(1024 * 1024),
        ...(authorization && { authorization }),
      },
    });
    req.on("response", async (res) => {
      let text = "";
      for await (const chunk of res) text += chunk;
      req.destroy();
      resolve({ status: res.statusCode!, body: JSON.parse(text) });
    });
    req.on("error", reject);
    req.write(Buffer.alloc(64 * 1024, "{"));
  });
}

/** Given our proxy server, who is asking is decided from the headers before any body is read. */
describe("stream proxy authentication", () => {
  let server: TestProxyServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("without a bearer token a request is refused 401 before its body is read; authorize never runs", async () => {
    server = await startProxyServer();
    expect(await partialUpload(server.url)).toEqual({
      status: 401,
      body: { error: "Proxy requests need an Authorization: Bearer <token> header", code: "denied" },
    });
    expect(await partialUpload(server.url, "Basic dXNlcjpwdw==")).toMatchObject({ status: 401 });
    expect(server.authorizations).toEqual([]);
  });

  it("authenticate denies on headers alone, with its status, the body unread; an allowed caller goes on to authorize", async () => {
    const seen: (string | undefined)[] = [];
    const behind = createScriptedModel(["Hello"]);
    server = await startProxyServer({
      streamFn: behind.streamFn,
      maxBodyBytes: 512 * 1024,
      authenticate: ({ authToken }) => {
        seen.push(authToken);
        return authToken === GOOD_TOKEN ? { type: "allow" } : { type: "deny", status: 403, message: "who are you?" };
      },
    });
    expect(await partialUpload(server.url, "Bearer stolen")).toEqual({
      status: 403,
      body: { error: "who are you?", code: "denied" },
    });
    // Allowed, the announced size is still too large: refused unread too.
    expect(await partialUpload(server.url, `Bearer ${GOOD_TOKEN}`)).toMatchObject({
      status: 413,
      body: { code: "body_too_large" },
    });
    const { result } = await collect(
      streamProxy(behind.model, contextOf("Hi"), { authToken: GOOD_TOKEN, proxyUrl: server.url }),
    );
    expect(result).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "Hello" }] });
    expect(seen).toEqual(["stolen", GOOD_TOKEN, GOOD_TOKEN]);
    expect(server.authorizations.map((entry) => entry.authToken)).toEqual([GOOD_TOKEN]);
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("token store down");
      },
    ],
    ["returns nonsense", () => ({ type: "maybe" }) as never],
  ])("an authenticate hook that %s: 500 with a generic message, the error only to onError", async (_how, hook) => {
    server = await startProxyServer({ authenticate: hook });
    expect(await partialUpload(server.url, `Bearer ${GOOD_TOKEN}`)).toEqual({
      status: 500,
      body: { error: "Proxy could not authorise the request", code: "authorization_failed" },
    });
    expect(server.errors.map((entry) => entry.stage)).toEqual(["authenticate"]);
    expect(server.authorizations).toEqual([]);
  });
});
