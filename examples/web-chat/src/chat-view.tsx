import { useChat } from "@ai-sdk/react";
import { TurnkitChatTransport, type TurnkitUIMessage } from "@turnkit/ui-stream";
import { useEffect, useMemo, useRef, useState } from "react";
import { MessageView } from "./message-view.js";
import type { ServerApi, ServerCallError, SessionHistory } from "./server-api.js";

interface ChatViewProps {
  sessionId: string;
  /** True for a chat the page just made up: the server has nothing of it yet, so no history is asked for. */
  isNew: boolean;
  token: string;
  api: ServerApi;
  /** A turn of this session started (the server holds the session now) or ended: the session list changed. */
  onSessionChange: () => void;
}

/**
 * One session: its history, then `useChat` on the durable server's UI
 * message stream. When turns were queued behind the one it resumed (sent
 * from another tab), the history is loaded again once that one ends, and
 * the next one is resumed after its own question. A history that cannot be
 * loaded is said, with a retry, never shown as an empty chat.
 */
export function ChatView(props: ChatViewProps) {
  const [history, setHistory] = useState<SessionHistory | { failure: string }>();
  const [loads, setLoads] = useState(0);
  // Whether the chat was new when it was opened (its first turn makes the server hold it, not a reload of it).
  const [openedNew] = useState(props.isNew);
  useEffect(() => {
    setHistory(undefined);
    if (openedNew && loads === 0) return setHistory({ messages: [] });
    props.api.history(props.sessionId).then(setHistory, (error: ServerCallError) =>
      // 404: a chat the server has no turn of (made up before a reload), the same as a new one.
      setHistory(
        error.status === 404 ? { messages: [] } : { failure: `this chat could not be loaded: ${error.message}` },
      ),
    );
  }, [props.api, props.sessionId, openedNew, loads]);
  if (!history) return <main className="chat">Loading…</main>;
  if ("failure" in history)
    return (
      <main className="chat">
        <p className="error" data-testid="history-error">
          {history.failure}
        </p>
        <button type="button" onClick={() => setLoads(loads + 1)}>
          Retry
        </button>
      </main>
    );
  return <Conversation key={loads} {...props} history={history} onQueueNext={() => setLoads(loads + 1)} />;
}

function Conversation({
  sessionId,
  token,
  api,
  onSessionChange,
  history,
  onQueueNext,
}: ChatViewProps & { history: SessionHistory; onQueueNext: () => void }) {
  // The turn the stream follows, named before its first chunk: a turn queued behind another sends nothing until it runs.
  const [streamedTurn, setStreamedTurn] = useState<string>();
  const transport = useMemo(
    () =>
      new TurnkitChatTransport<TurnkitUIMessage>({
        api: "/chat",
        headers: () => ({ authorization: `Bearer ${token}` }),
        onTurn: ({ turnId }) => setStreamedTurn(turnId),
      }),
    [token],
  );
  const { messages, sendMessage, status, error, resumeStream, stop, addToolApprovalResponse } =
    useChat<TurnkitUIMessage>({
      id: sessionId,
      messages: history.messages,
      transport,
      // At most one render per 50 ms however fast chunks come: rendering each of a long answer's hundreds of
      // chunks (a layout of the whole text each time) kept the page busy for seconds after the answer had come.
      experimental_throttle: 50,
      onFinish: () => {
        onSessionChange();
        // The resumed turn ended: the next queued one starts now, after its own question.
        if (history.queuedTurns?.length) setTimeout(onQueueNext);
      },
    });
  // A turn still running when the page loaded: stream it again from its start, onto its own message.
  // Leaving the session closes its stream (the turn goes on, on the server): a browser keeps six
  // connections to a server, and streams left open by the sessions a person looked at would use them up.
  useEffect(() => {
    if (history.resumeTurnId) void resumeStream({ body: { turnId: history.resumeTurnId } });
    return () => void stop();
  }, [history.resumeTurnId, resumeStream, stop]);

  const busy = status === "submitted" || status === "streaming";
  const last = messages[messages.length - 1];
  const runningTurn = busy && last?.role === "assistant" ? last.metadata?.turnId : undefined;
  // Sent, and not started: the stream named its turn, which waits behind another (sent from another tab).
  const queuedTurn = busy && last?.role === "user" ? streamedTurn : undefined;
  // A turn started: the server holds the session now, and it belongs in the list (a new chat's first one too).
  useEffect(() => {
    if (runningTurn) onSessionChange();
  }, [runningTurn, onSessionChange]);
  const [draft, setDraft] = useState("");
  const [steer, setSteer] = useState("");
  const [note, setNote] = useState<string>();
  const end = useRef<HTMLDivElement>(null);
  // Stops the turn on the server (running or queued); the stream stays open and shows how it ended.
  // A queued turn stopped: the server takes it out of the queue and ends it, without running.
  const [stoppedTurn, setStoppedTurn] = useState<string>();
  const stopButton = (turnId: string) => (
    <button
      type="button"
      data-testid="stop"
      disabled={stoppedTurn === turnId}
      onClick={() =>
        api.abort(sessionId, turnId).then(
          () => {
            setNote(undefined);
            setStoppedTurn(turnId);
          },
          (error: Error) => setNote(`not stopped: ${error.message}`),
        )
      }
    >
      Stop
    </button>
  );
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [messages]);

  return (
    <main className="chat">
      <div className="messages" data-testid="messages">
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            onAnswer={async (turnId, approvalId, approved) => {
              await api.answer(sessionId, turnId, approvalId, approved);
              await addToolApprovalResponse({ id: approvalId, approved });
            }}
            onReply={(turnId, requestId, answer) => api.reply(sessionId, turnId, requestId, answer)}
          />
        ))}
        {error && (
          <p className="error" data-testid="error">
            {error.message}
          </p>
        )}
        <div ref={end} />
      </div>
      <footer>
        <p className="status" data-testid="status" data-status={status}>
          {queuedTurn
            ? stoppedTurn === queuedTurn
              ? "stopped: it ends without running…"
              : "queued: waits for the turn before it…"
            : busy
              ? "streaming…"
              : status}
          {note && <span className="note"> {note}</span>}
        </p>
        {runningTurn ? (
          <form
            className="steer"
            onSubmit={async (event) => {
              event.preventDefault();
              try {
                const { accepted } = await api.steer(sessionId, runningTurn, steer);
                setNote(accepted ? `steered: ${steer}` : "the turn had finished: send it as a new message");
                setSteer("");
              } catch (error) {
                setNote(`not steered: ${(error as Error).message}`);
              }
            }}
          >
            <input
              data-testid="steer-input"
              value={steer}
              onChange={(event) => setSteer(event.target.value)}
              placeholder="Steer the running turn…"
            />
            <button type="submit" disabled={steer.trim() === ""}>
              Steer
            </button>
            {stopButton(runningTurn)}
          </form>
        ) : queuedTurn ? (
          <div className="steer">{stopButton(queuedTurn)}</div>
        ) : (
          <form
            className="compose"
            onSubmit={(event) => {
              event.preventDefault();
              if (draft.trim() === "" || busy) return;
              setNote(undefined);
              setStreamedTurn(undefined);
              void sendMessage({ text: draft });
              setDraft("");
            }}
          >
            <input
              data-testid="message-input"
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              placeholder="Message… (mention “deploy” to be asked for an approval)"
            />
            <button type="submit" data-testid="send" disabled={busy}>
              Send
            </button>
          </form>
        )}
      </footer>
    </main>
  );
}
