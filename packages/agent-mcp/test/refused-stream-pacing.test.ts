/*
 * The session's event stream asked for again after the GET opening it was
 * refused with a status (the session is gone, a gateway failing): the
 * SDK's client asks again after the server's `retry` interval, a few
 * milliseconds, so a session the server forgot got several GETs within
 * milliseconds (the fuzz's mcp-server property: a tool that closes its
 * session on a server with an event store). Such a GET is paced as one
 * whose stream ended without a message: the next no sooner than a second
 * after it began. A 401 is not: the client asks again with the tokens it
 * then gets.
 */
import { describe, expect, it } from "vitest";
import { fetchPacingEmptyStreams } from "../src/empty-stream-pacing.js";

/** A fetch answering every GET with `status`, noting when (Date.now()) each came in. */
function refusingFetch(status: number) {
  const gets: number[] = [];
  const fetch = async (_url: string | URL, init?: RequestInit) => {
    if (init?.method === "GET") gets.push(Date.now());
    return new Response("refused", { status });
  };
  return { fetch, gets };
}

describe("a GET for an event stream refused with a status", () => {
  for (const status of [404, 502])
    it(`(${status}): the next GET begins no sooner than a second after it`, async () => {
      const { fetch, gets } = refusingFetch(status);
      const paced = fetchPacingEmptyStreams(fetch);
      for (let i = 0; i < 2; i++) expect((await paced("http://127.0.0.1/mcp", { method: "GET" })).status).toBe(status);
      expect(gets[1]! - gets[0]!).toBeGreaterThanOrEqual(990);
      // A POST is never held back.
      const before = Date.now();
      await paced("http://127.0.0.1/mcp", { method: "POST", body: "{}" });
      expect(Date.now() - before).toBeLessThan(900);
    });

  it("(401): the GET asked again with the tokens goes at once", async () => {
    const { fetch, gets } = refusingFetch(401);
    const paced = fetchPacingEmptyStreams(fetch);
    for (let i = 0; i < 2; i++) await paced("http://127.0.0.1/mcp", { method: "GET" });
    expect(gets[1]! - gets[0]!).toBeLessThan(900);
  });
});
