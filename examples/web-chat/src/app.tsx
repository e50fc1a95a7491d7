import { useCallback, useEffect, useMemo, useState } from "react";
import { ChatView } from "./chat-view.js";
import { type ServerCallError, type SessionSummary, readToken, serverApi } from "./server-api.js";

function newSessionId(): string {
  return `chat-${crypto.randomUUID().slice(0, 8)}`;
}

/** The page: sign in with the printed token, pick or start a session, chat. */
export function App() {
  const [token, setToken] = useState(readToken);
  // The server's list of the user's sessions; undefined until it first answered.
  const [sessions, setSessions] = useState<SessionSummary[]>();
  const [sessionId, setSessionId] = useState<string>(() => sessionStorage.getItem("turnkit-session") ?? newSessionId());
  const api = useMemo(() => (token ? serverApi(token) : undefined), [token]);
  const [listFailure, setListFailure] = useState<string>();
  const refresh = useCallback(() => {
    api?.sessions().then(
      (list) => {
        setSessions(list);
        setListFailure(undefined);
      },
      // Only a refused token signs out; a failed request (offline, a server error) keeps the page as it is.
      (error: ServerCallError) =>
        error.status === 401 ? setToken(undefined) : setListFailure(`sessions not updated: ${error.message}`),
    );
  }, [api]);
  useEffect(() => {
    refresh();
  }, [refresh]);
  useEffect(() => {
    sessionStorage.setItem("turnkit-session", sessionId);
  }, [sessionId]);

  if (!token || !api) return <SignIn onToken={setToken} />;
  // A chat the list does not hold was made up in this page: the server has nothing of it, so no history is asked
  // for. Until the list answers that is not known: the chat waits for it (or, when it failed, asks).
  const listed = sessions?.some((session) => session.sessionId === sessionId);
  return (
    <div className="layout">
      <nav className="sessions">
        <button type="button" data-testid="new-chat" onClick={() => setSessionId(newSessionId())}>
          + New chat
        </button>
        {listFailure && (
          <p className="error" data-testid="sessions-error">
            {listFailure}
          </p>
        )}
        <ul>
          {sessions?.map((session) => (
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
      {sessions === undefined && listFailure === undefined ? (
        <main className="chat">Loading…</main>
      ) : (
        <ChatView
          key={sessionId}
          sessionId={sessionId}
          isNew={listed === false}
          token={token}
          api={api}
          onSessionChange={refresh}
        />
      )}
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
