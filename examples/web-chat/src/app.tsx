import { useCallback, useEffect, useMemo, useState } from "react";
import { ChatView } from "./chat-view.js";
import { type SessionSummary, readToken, serverApi } from "./server-api.js";

function newSessionId(): string {
  return `chat-${crypto.randomUUID().slice(0, 8)}`;
}

/** The page: sign in with the printed token, pick or start a session, chat. */
export function App() {
  const [token, setToken] = useState(readToken);
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [sessionId, setSessionId] = useState<string>(() => sessionStorage.getItem("turnkit-session") ?? newSessionId());
  const api = useMemo(() => (token ? serverApi(token) : undefined), [token]);
  const refresh = useCallback(() => {
    api?.sessions().then(setSessions, () => setToken(undefined));
  }, [api]);
  useEffect(() => {
    refresh();
  }, [refresh]);
  useEffect(() => {
    sessionStorage.setItem("turnkit-session", sessionId);
  }, [sessionId]);

  if (!token || !api) return <SignIn onToken={setToken} />;
  return (
    <div className="layout">
      <nav className="sessions">
        <button type="button" data-testid="new-chat" onClick={() => setSessionId(newSessionId())}>
          + New chat
        </button>
        <ul>
          {sessions.map((session) => (
            <li key={session.sessionId}>
              <button
                type="button"
                className={session.sessionId === sessionId ? "current" : undefined}
                data-testid="session"
                onClick={() => setSessionId(session.sessionId)}
              >
                {session.title}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <ChatView key={sessionId} sessionId={sessionId} token={token} api={api} onTurnEnd={refresh} />
    </div>
  );
}

function SignIn({ onToken }: { onToken: (token: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <form
      className="sign-in"
      onSubmit={(event) => {
        event.preventDefault();
        sessionStorage.setItem("turnkit-token", value.trim());
        onToken(value.trim());
      }}
    >
      <h1>Turnkit web chat</h1>
      <p>Paste a token the durable server printed at start (or open the link it printed).</p>
      <input value={value} onChange={(event) => setValue(event.target.value)} placeholder="token" />
      <button type="submit">Sign in</button>
    </form>
  );
}
