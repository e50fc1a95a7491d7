/*
 * examples/web-chat in a real Chromium (Debian's `chromium`, driven by
 * playwright-core), served by this server with two workers: send a
 * message and watch it stream, approve a call from the approval card, kill
 * the worker running the turn with SIGKILL and see the page finish the
 * answer after recovery, steer a running turn, reload in the middle of a
 * stream and find no text twice; answer the question an MCP server asks
 * on the card the page shows; load a session whose second turn waits
 * behind the first and see each answer after its own question; stop a
 * message queued behind another tab's turn and see it end once, aborted,
 * without running; look through
 * two chats that wait for approvals, back and forth, and still approve one;
 * stop a turn while its tool runs; see a failing model's error; read a long
 * answer, rendered in a few batches; watch a sub-agent's progress, its tool
 * call and its result under the call that runs it. One browser; each test
 * has its own context (its own storage and network) and chats of its own.
 * The first test (it kills a worker, and expects its chat to be the only
 * one listed) runs alone; the others then run at the same time, as tabs
 * of several people would: most of their time is spent waiting for
 * streamed words, approvals and the page. Screenshots go to
 * test-results/web-chat/ (mid-stream with the approval card; after
 * recovery).
 *
 * Without Chromium the test does not run and says so, with the command
 * that installs it; with TURNKIT_REQUIRE_BROWSER=1 (CI) it runs and fails.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { type ExpectStatic, type TestContext, afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DurableServer, startDurableServer } from "../src/durable-server.js";
import { testWorkerCommand, testWorkerEnv } from "./support/worker-bundle.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const INSTALL = "apt-get install -y chromium";
const required = process.env.TURNKIT_REQUIRE_BROWSER === "1";
const runs = required || existsSync(CHROMIUM);
const WEB_CHAT = fileURLToPath(new URL("../../web-chat/", import.meta.url));
const OUTPUT = fileURLToPath(new URL("../test-results/web-chat/", import.meta.url));

if (!runs) {
  console.warn(
    `\n*** The web-chat browser test did NOT run: Chromium is not installed at ${CHROMIUM}.\n*** Install it with: ${INSTALL}\n`,
  );
  describe("the web chat in a real browser", () => {
    it.skip(`did NOT run: no Chromium at ${CHROMIUM}; install it with: ${INSTALL}`, () => {});
  });
}

describe.runIf(runs)("the web chat in a real browser", () => {
  let server: DurableServer;
  let browser: Browser;
  // A note's call runs until the test writes the file named after its turn here (or the turn is stopped).
  const noteGates = mkdtempSync(join(tmpdir(), "web-chat-notes-"));
  const finishNote = (turnId: string) => writeFileSync(join(noteGates, turnId), "");

  beforeAll(async () => {
    const [{ build }, { chromium }] = await Promise.all([import("vite"), import("playwright-core")]);
    // The page is built (once), the server and the browser start, all at the same time.
    [, server, browser] = await Promise.all([
      build({ configFile: join(WEB_CHAT, "vite.config.ts"), logLevel: "warn" }),
      startDurableServer({
        workerCommand: testWorkerCommand(),
        port: 0,
        leaseMs: 1500,
        webRoot: join(WEB_CHAT, "dist"),
        workerEnv: { DEMO_DELAY_MS: "150", DEMO_NOTE_GATE_DIR: noteGates, ...testWorkerEnv() },
      }),
      chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      }),
    ]);
    mkdirSync(OUTPUT, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(noteGates, { recursive: true, force: true });
  }, 60_000);

  /** A page in a context of its own (its storage, its network), closed when the test (`task`) ends. */
  async function openPage(task: TestContext): Promise<{ page: Page; context: BrowserContext }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    task.onTestFinished(() => context.close());
    return { page: await context.newPage(), context };
  }

  const api = async (path: string) =>
    (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.tokens.alice}` } })).json();
  const lastAnswer = (page: Page) => page.getByTestId("assistant-message").last();
  /** The answer's text parts as the page shows them (tool calls, steering notes and metadata left out). */
  const answerText = async (answer: Locator) => (await answer.locator("span.text").allInnerTexts()).join("");
  /** Waits until the answer's text matches; `expect` is the test's own (a concurrent test's polls must use it). */
  const waitForText = (expect: ExpectStatic, answer: Locator, pattern: RegExp, timeout = 30_000) =>
    expect.poll(() => answerText(answer), { timeout, interval: 50 }).toMatch(pattern);
  const count = (text: string, piece: string) => text.split(piece).length - 1;

  /** The running turn of the page's session, and the pid of the worker running it. */
  async function runningTurn(page: Page): Promise<{ sessionId: string; turnId: string; pid: number }> {
    const sessionId = await page.evaluate(() => sessionStorage.getItem("turnkit-session")!);
    const { resumeTurnId: turnId } = await api(`/sessions/${sessionId}/messages`);
    const status = await api(`/sessions/${sessionId}/turns/${turnId}`);
    expect(status).toMatchObject({ state: "running", pid: expect.any(Number) });
    return { sessionId, turnId, pid: status.pid };
  }

  it("streams, asks for an approval, survives its worker's SIGKILL, takes steering, and resumes a reload without repeating text", async (task) => {
    const { page } = await openPage(task);
    await page.goto(`${server.url}/#token=${server.tokens.alice}`);

    // A message, its answer streaming, an approval card.
    await page.getByTestId("message-input").fill("please deploy");
    await page.getByTestId("send").click();
    const first = lastAnswer(page);
    await waitForText(expect, first, /^I will deploy the web service once you approve\./);
    const card = page.getByTestId("approval-card");
    await card.waitFor();
    expect(await card.innerText()).toContain('{"service":"web"}');
    await page.screenshot({ path: join(OUTPUT, "1-mid-stream-approval-card.png") });

    // Approved from the page: the durable turn goes on; kill its worker while the answer streams.
    await page.getByTestId("approve").click();
    await waitForText(expect, first, /Done: web deployed/);
    const { sessionId, turnId, pid } = await runningTurn(page);
    process.kill(pid, "SIGKILL");
    await expect.poll(() => first.getAttribute("data-status"), { timeout: 60_000 }).toBe("completed");
    const recovered = await answerText(first);
    expect(recovered).toMatch(
      /^I will deploy the web service once you approve\.\s*Done: web deployed \(call_1\)\. wrap1 wrap2 .* wrap10$/s,
    );
    expect(count(recovered, "Done: web deployed")).toBe(1);
    expect(count(recovered, "wrap1 ")).toBe(1);
    expect(await first.getByTestId("tool").getAttribute("data-state")).toBe("output-available");
    expect(server.workers().map((w) => w.pid)).not.toContain(pid);
    // The kill landed while the answer streamed: the log says which attempt the page had to hide.
    const log = await (
      await fetch(`${server.url}/sessions/${sessionId}/turns/${turnId}/events`, {
        headers: { authorization: `Bearer ${server.tokens.alice}` },
      })
    ).text();
    expect(log).toContain('"phase":"durable.resume"');
    await page.screenshot({ path: join(OUTPUT, "2-after-recovery.png") });

    // A second turn: steer it while its tool runs.
    await page.getByTestId("message-input").fill("take a note");
    await page.getByTestId("send").click();
    const second = lastAnswer(page);
    await waitForText(expect, second, /word3 /);

    // Reload mid-stream: the history, then this turn replayed onto its own message.
    await page.reload();
    const replayed = lastAnswer(page);
    await waitForText(expect, replayed, /word1 word2 /);
    await expect
      .poll(() => replayed.getByTestId("tool").getAttribute("data-state"), { timeout: 30_000 })
      .toBe("input-available");
    // Steered while the call runs: the call ends once the page says the steer was accepted, however slow the machine.
    const noting = await runningTurn(page);
    await page.getByTestId("steer-input").fill("also tag it");
    await page.getByTestId("steer-input").press("Enter");
    await expect
      .poll(() => page.getByTestId("status").innerText(), { timeout: 30_000 })
      .toContain("steered: also tag it");
    finishNote(noting.turnId);
    await expect.poll(() => replayed.getAttribute("data-status"), { timeout: 60_000 }).toBe("completed");
    const text = await answerText(replayed);
    expect(count(text, "word1 ")).toBe(1);
    expect(count(text, "word15")).toBe(1);
    // The scripted model answers a message steered in after its tool ran with "Noted: …".
    expect(text).toMatch(/^word1 word2 .* word15\s*Noted: also tag it$/s);
    expect(await replayed.innerText()).toContain("steered: also tag it");
    expect(await replayed.getByTestId("tool").getAttribute("data-state")).toBe("output-available");
    // The first answer, now from the history, is there once, as it was.
    expect(await page.getByTestId("assistant-message").count()).toBe(2);
    expect(await answerText(page.getByTestId("assistant-message").first())).toBe(recovered);
    // The session is in the list.
    expect(await page.getByTestId("session").allInnerTexts()).toEqual(["please deploy"]);
  }, 180_000);

  it.concurrent("a session whose turn waits behind another (sent from another tab) shows each answer after its own question", async (task) => {
    const { expect } = task;
    const post = (path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.tokens.alice}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    await post("/sessions/two-tabs/turns", { turnId: "t1", text: "deploy from tab one" });
    await post("/sessions/two-tabs/turns", { turnId: "t2", text: "deploy from tab two" });
    const { page, context } = await openPage(task);
    await page.goto(`${server.url}/#token=${server.tokens.alice}`);
    await page.getByTestId("session").filter({ hasText: "deploy from tab one" }).click();
    await page.getByTestId("approval-card").waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("user-message").allInnerTexts()).toEqual(["deploy from tab one"]);
    // Offline, the controls say that their request failed (the open stream goes on).
    await context.setOffline(true);
    await page.getByTestId("approve").click();
    expect(await page.getByTestId("approval-error").innerText()).toMatch(/^the answer did not reach the server: /);
    await page.getByTestId("stop").click();
    await expect.poll(() => page.getByTestId("status").innerText()).toContain("not stopped: ");
    await context.setOffline(false);
    await page.getByTestId("stop").click();
    // Once the first turn ended, the second one's question and its answer follow it.
    await page.getByTestId("assistant-message").nth(1).getByTestId("approval-card").waitFor({ timeout: 30_000 });
    const users = await page.getByTestId("user-message").allInnerTexts();
    expect(users).toEqual(["deploy from tab one", "deploy from tab two"]);
    expect(await page.getByTestId("assistant-message").first().getAttribute("data-status")).toBe("aborted");
    expect(await answerText(page.getByTestId("assistant-message").first())).toMatch(/^I will deploy/);
    // Stopped while it waited for approval: the call was not approved, and its part says why.
    const stopped = page.getByTestId("assistant-message").first().getByTestId("tool");
    expect(await stopped.getAttribute("data-state")).toBe("output-denied");
    expect(await stopped.textContent()).toContain("Tool call was not executed: the run was aborted.");
    await post("/sessions/two-tabs/turns/t2/abort");
    await page.close();
  }, 60_000);

  it.concurrent("a message sent while another tab's turn runs waits queued, with a Stop: stopped, it ends once, aborted, without running", async (task) => {
    const { expect } = task;
    const { page } = await openPage(task);
    await page.goto(`${server.url}/#token=${server.tokens.alice}`);
    await page.getByTestId("message-input").waitFor();
    const sessionId = await page.evaluate(() => sessionStorage.getItem("turnkit-session")!);
    // Another tab starts a turn in this chat, which waits for an approval; this page does not know of it.
    const post = (path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.tokens.alice}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect(
      (await post(`/sessions/${sessionId}/turns`, { turnId: "other-tab", text: "deploy from the other tab" })).ok,
    ).toBe(true);
    await page.getByTestId("message-input").fill("hello from this tab");
    await page.getByTestId("send").click();
    await expect.poll(() => page.getByTestId("status").innerText()).toContain("queued");
    await page.getByTestId("stop").click();
    // Taken out of the queue, it ends at once, while the other tab's turn still runs.
    await expect.poll(() => page.getByTestId("status").getAttribute("data-status"), { timeout: 30_000 }).toBe("ready");
    expect(await api(`/sessions/${sessionId}/turns/other-tab`)).toMatchObject({ state: "running" });
    await post(`/sessions/${sessionId}/turns/other-tab/abort`);
    await expect
      .poll(async () => (await api(`/sessions/${sessionId}/turns/other-tab`)).state, { timeout: 30_000 })
      .toBe("finished");
    const answers = page.getByTestId("assistant-message");
    expect(await answers.count()).toBe(1);
    expect(await answers.first().getAttribute("data-status")).toBe("aborted");
    expect(await answerText(answers.first())).toBe("");
    // On the server: this one ended aborted and never asked the model.
    const turns: { turnId: string; outcome?: string }[] = await api(`/sessions/${sessionId}/turns`);
    expect(turns.map((turn) => turn.outcome)).toEqual(["aborted", "aborted"]);
    const queued = turns[1]!.turnId;
    const log = await (
      await fetch(`${server.url}/sessions/${sessionId}/turns/${queued}/events`, {
        headers: { authorization: `Bearer ${server.tokens.alice}` },
      })
    ).text();
    expect(log).not.toContain("stream.resp");
    await page.close();
  }, 60_000);

  it.concurrent("shows the question an MCP server asks in the middle of a call, and the answer typed there reaches the server", async (task) => {
    const { expect } = task;
    const { page } = await openPage(task);
    await page.goto(`${server.url}/#token=${server.tokens.alice}`);
    await page.getByTestId("new-chat").click();
    await page.getByTestId("message-input").fill("please release");
    await page.getByTestId("send").click();
    const card = page.getByTestId("question-card");
    await card.waitFor({ timeout: 30_000 });
    expect(await card.innerText()).toContain("release-desk asks: Which branch should I release?");
    await page.getByTestId("question-field-branch").fill("main");
    // A titled choice is a list of its titles; the delay, optional, is left empty and so left out (not 0).
    await page.getByTestId("question-field-environment").selectOption({ label: "Production" });
    await page.getByTestId("question-send").click();
    const answer = lastAnswer(page);
    await waitForText(
      expect,
      answer,
      /^Let me ask which branch\.\s*Done: releasing main to production \(server pid \d+\)/,
    );
    // Answered, the question stays as it was asked, without its form.
    expect(await card.count()).toBe(0);
    expect(await answer.getByTestId("question-answered").innerText()).toContain("Which branch should I release?");
    await page.close();
  }, 60_000);

  it.concurrent("looking through chats that wait keeps the page working; a new chat is listed from its first message; Stop ends a running tool at once; the model's error is shown; a long answer renders in batches", async (task) => {
    const { expect } = task;
    const { page } = await openPage(task);
    const refused: string[] = [];
    page.on("response", (res) => {
      if (res.status() >= 400) refused.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`${server.url}/#token=${server.tokens.alice}`);
    const openChat = async (text: string) => {
      await page.getByTestId("new-chat").click();
      await page.getByTestId("message-input").fill(text);
      await page.getByTestId("send").click();
    };
    await openChat("deploy the api");
    await page.getByTestId("approval-card").waitFor({ timeout: 30_000 });
    await openChat("deploy the docs");
    await page.getByTestId("approval-card").waitFor({ timeout: 30_000 });
    // Both are listed while their turns wait, not only once they end.
    await expect
      .poll(() => page.getByTestId("session").allInnerTexts())
      .toEqual(expect.arrayContaining(["deploy the api", "deploy the docs"]));
    // Each visit streams the waiting turn; leaving closes that stream, so the browser's six connections last.
    for (let visit = 0; visit < 4; visit++) {
      for (const title of ["deploy the api", "deploy the docs"]) {
        await page.getByTestId("session").filter({ hasText: title }).click();
        await page.getByTestId("approval-card").waitFor({ timeout: 10_000 });
      }
    }
    await page.getByTestId("approve").click();
    await waitForText(expect, lastAnswer(page), /Done: web deployed/);

    // Stop while a tool runs (it runs until stopped: its gate is never opened): the tool stops at once, and its
    // result says it did not save the note.
    await openChat("note: buy milk");
    const noting = lastAnswer(page);
    await expect
      .poll(() => noting.getByTestId("tool").getAttribute("data-state"), { timeout: 30_000 })
      .toBe("input-available");
    await page.getByTestId("stop").click();
    await expect.poll(() => noting.getAttribute("data-status"), { timeout: 30_000 }).toBe("aborted");
    await expect.poll(() => noting.getByTestId("tool").getAttribute("data-state")).toBe("output-available");
    expect(await noting.getByTestId("tool").textContent()).toContain("note not saved: the turn was stopped");
    expect(await page.getByTestId("status").getAttribute("data-status")).toBe("ready");

    // The model fails mid-answer: the page says so, with what the model wrote before.
    await page.getByTestId("message-input").fill("please fail");
    await page.getByTestId("send").click();
    await expect.poll(() => page.getByTestId("status").getAttribute("data-status"), { timeout: 30_000 }).toBe("error");
    expect(await page.getByTestId("error").innerText()).toBe("upstream: the model is overloaded (demo)");
    const failed = lastAnswer(page);
    expect(await failed.getAttribute("data-status")).toBe("failed");
    expect(await answerText(failed)).toMatch(/^partial1 partial2/);
    // The durable log holds the same ends: the stopped turn aborted, the failed one failed.
    const sessionId = await page.evaluate(() => sessionStorage.getItem("turnkit-session")!);
    const turns = await api(`/sessions/${sessionId}/turns`);
    expect(turns.map((turn: { outcome?: string }) => turn.outcome)).toEqual(["aborted", "failed"]);

    // A long answer (3,000 words in about 500 chunks, as fast as they come) is shown whole, rendered in a few
    // batches, not once per chunk (which kept the page busy for seconds after the answer had come).
    await page.evaluate(() => {
      const counted = window as unknown as { renders: number };
      counted.renders = 0;
      new MutationObserver(() => counted.renders++).observe(document.querySelector("[data-testid=messages]")!, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
    await page.getByTestId("message-input").fill("a long one");
    await page.getByTestId("send").click();
    const long = lastAnswer(page);
    await expect.poll(() => long.getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    const longText = await answerText(long);
    expect([longText.split(" ").length, longText.endsWith("long2999 long3000.")]).toEqual([3000, true]);
    // One per 50 ms at most: a dozen here, under 250 even on a machine so loaded that the stream takes 12 s.
    expect(await page.evaluate(() => (window as unknown as { renders: number }).renders)).toBeLessThan(250);
    // A new chat never asked the server for a history it cannot have.
    expect(refused).toEqual([]);
    await page.close();
  }, 120_000);

  it.concurrent("shows a sub-agent's progress under the call that runs it: its tool call, its result, and its end", async (task) => {
    const { expect } = task;
    const { page } = await openPage(task);
    await page.goto(`${server.url}/#token=${server.tokens.alice}`);
    await page.getByTestId("new-chat").click();
    await page.getByTestId("message-input").fill("research the moon");
    await page.getByTestId("send").click();
    const answer = lastAnswer(page);
    await expect.poll(() => answer.getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    expect(await answerText(answer)).toMatch(
      /^Let me ask the researcher\.\s*The researcher says: Found: the moon is in the encyclopedia\.$/,
    );
    // Under the research call: the sub-agent, done after two steps, its lookup with its result, and what it said.
    const call = answer.getByTestId("tool");
    expect(await call.getAttribute("data-state")).toBe("output-available");
    const subAgent = answer.getByTestId("sub-agent");
    expect(await subAgent.count()).toBe(1);
    expect(await subAgent.getAttribute("data-status")).toBe("completed");
    expect(await subAgent.innerText()).toContain("research: completed · 2 steps");
    const lookup = subAgent.getByTestId("sub-agent-tool");
    expect(await lookup.getAttribute("data-state")).toBe("done");
    expect(await lookup.innerText()).toMatch(/^lookup done\s+the moon is in the encyclopedia$/);
    expect(await subAgent.getByTestId("sub-agent-text").innerText()).toBe(
      "Looking up the moon.\nFound: the moon is in the encyclopedia.",
    );
    // Reloaded, the history shows it the same.
    await page.reload();
    const reloaded = lastAnswer(page).getByTestId("sub-agent");
    await reloaded.waitFor({ timeout: 30_000 });
    expect(await reloaded.getAttribute("data-status")).toBe("completed");
    expect(await reloaded.getByTestId("sub-agent-tool").getAttribute("data-state")).toBe("done");
  }, 60_000);
});
