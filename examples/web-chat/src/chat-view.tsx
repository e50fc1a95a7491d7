import { useChat } from "@ai-sdk/react";
import { TurnkitChatTransport, type TurnkitUIMessage } from "@turnkit/ui-stream";
import { useEffect, useMemo, useRef, useState } from "react";
import { MessageView } from "./message-view.js";
import type { ServerApi, SessionHistory } from "./server-api.js";

interface ChatViewProps {
  sessionId: string;
  token: string;
  api: ServerApi;
  onTurnEnd: () => void;
}

/**
 * One session: its history, then `useChat` on the durable server's UI
 * message stream. When turns were queued behind the one it resumed (sent
 * from another tab), the history is loaded again once that one ends, and
 * the next one is resumed after its own question.
 */
export function ChatView(props: ChatViewProps) {
  const [history, setHistory] = useState<SessionHistory>();
  const [loads, setLoads] = useState(0);
  useEffect(() => {
    setHistory(undefined);
    props.api.history(props.sessionId).then(setHistory, () => setHistory({ messages: [] }));
  }, [props.api, props.sessionId, loads]);
  if (!history) return <main className="chat">Loading…</main>;
  return <Conversation key={loads} {...props} history={history} onQueueNext={() => setLoads(loads + 1)} />;
}

function Conversation({
  sessionId,
  token,
  api,
  onTurnEnd,
  history,
  onQueueNext,
}: ChatViewProps & { history: SessionHistory; onQueueNext: () => void }) {
  const transport = useMemo(
    () =>
      new TurnkitChatTransport<TurnkitUIMessage>({
        api: "/chat",
        headers: () => ({ authorization: `Bearer ${token}` }),
      }),
    [token],
  );
  const { messages, sendMessage, status, error, resumeStream, addToolApprovalResponse } = useChat<TurnkitUIMessage>({
    id: sessionId,
    messages: history.messages,
    transport,
    onFinish: () => {
      onTurnEnd();
      // The resumed turn ended: the next queued one starts now, after its own question.
      if (history.queuedTurns?.length) setTimeout(onQueueNext);
    },
  });
  // A turn still running when the page loaded: stream it again from its start, onto its own message.
  const resumed = useRef(false);
  useEffect(() => {
    if (history.resumeTurnId && !resumed.current) {
      resumed.current = true;
      void resumeStream({ body: { turnId: history.resumeTurnId } });
    }
  }, [history.resumeTurnId, resumeStream]);

  const busy = status === "submitted" || status === "streaming";
  const last = messages[messages.length - 1];
  const runningTurn = busy && last?.role === "assistant" ? last.metadata?.turnId : undefined;
  const [draft, setDraft] = useState("");
  const [steer, setSteer] = useState("");
  const [note, setNote] = useState<string>();
  const end = useRef<HTMLDivElement>(null);
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
          {busy ? "streaming…" : status}
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
            <button
              type="button"
              data-testid="stop"
              onClick={() =>
                api.abort(sessionId, runningTurn).then(
                  () => setNote(undefined),
                  (error: Error) => setNote(`not stopped: ${error.message}`),
                )
              }
            >
              Stop
            </button>
          </form>
        ) : (
          <form
            className="compose"
            onSubmit={(event) => {
              event.preventDefault();
              if (draft.trim() === "" || busy) return;
              setNote(undefined);
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
