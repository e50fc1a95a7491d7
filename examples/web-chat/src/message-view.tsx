import {
  type TurnkitSubAgentPart,
  type TurnkitUIMessage,
  withApprovalAnswers,
  withoutSupersededParts,
} from "@turnkit/ui-stream";
import { useState } from "react";
import { type Question, QuestionCard } from "./question-card.js";
import type { QuestionAnswer } from "./server-api.js";

type Part = TurnkitUIMessage["parts"][number];
type ToolPart = Extract<Part, { toolCallId: string }>;

interface MessageViewProps {
  message: TurnkitUIMessage;
  onAnswer: (turnId: string, approvalId: string, approved: boolean) => Promise<void>;
  onReply: (turnId: string, requestId: string, answer: QuestionAnswer) => Promise<void>;
}

/** One message: a user's text, or a turn's answer with its tool calls folded under it and its open questions. */
export function MessageView({ message, onAnswer, onReply }: MessageViewProps) {
  if (message.role === "user") {
    const text = message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
    return (
      <div className="message user" data-testid="user-message">
        {text}
      </div>
    );
  }
  // A crash's interrupted attempt left out; approvals answered elsewhere (another tab) shown as answered.
  const shown = withApprovalAnswers(withoutSupersededParts(message));
  const metadata = message.metadata;
  const turnId = metadata?.turnId ?? message.id;
  // A question is open while its turn runs, its wait has not ended (answered here, in another tab, or
  // timed out: the stream says so) and its call has no result yet.
  const answered = new Set(
    shown.parts.flatMap((part) =>
      "toolCallId" in part && String(part.state).startsWith("output-") ? [part.toolCallId] : [],
    ),
  );
  // What each sub-agent call did so far, shown under the call that runs it (nested ones too).
  const subAgents = new Map<string, TurnkitSubAgentPart[]>();
  for (const part of shown.parts)
    if (part.type === "data-turnkit-sub-agent") {
      const data = part.data as TurnkitSubAgentPart;
      subAgents.set(data.toolCallId, [...(subAgents.get(data.toolCallId) ?? []), data]);
    }
  const isOpen = (question: Question) =>
    metadata?.status === "running" &&
    question.outcome === undefined &&
    !(question.toolCallId !== undefined && answered.has(question.toolCallId));
  return (
    <div className="message assistant" data-testid="assistant-message" data-status={metadata?.status}>
      <div className="answer" data-testid="assistant-text">
        {shown.parts.map((part, index) =>
          part.type === "data-turnkit-elicitation" ? (
            <QuestionCard
              key={index}
              question={part.data as Question}
              open={isOpen(part.data as Question)}
              onReply={(answer) => onReply(turnId, (part.data as Question).requestId, answer)}
            />
          ) : (
            <PartView key={index} part={part} turnId={turnId} onAnswer={onAnswer} subAgents={subAgents} />
          ),
        )}
      </div>
      {metadata && (
        <div className="meta" data-testid="message-meta">
          {metadata.status}
          {metadata.steps !== undefined && ` · ${metadata.steps} steps`}
          {metadata.usage && ` · ${metadata.usage.totalTokens} tokens · $${metadata.usage.cost.total.toFixed(4)}`}
          {metadata.error && ` · ${metadata.error.code}: ${metadata.error.message}`}
        </div>
      )}
    </div>
  );
}

function PartView({
  part,
  turnId,
  onAnswer,
  subAgents,
}: {
  part: Part;
  turnId: string;
  onAnswer: MessageViewProps["onAnswer"];
  subAgents: ReadonlyMap<string, TurnkitSubAgentPart[]>;
}) {
  if (part.type === "text") return <span className="text">{part.text}</span>;
  if (part.type === "reasoning")
    return (
      <details className="reasoning">
        <summary>thinking</summary>
        {part.text}
      </details>
    );
  if (part.type === "data-turnkit-steering")
    return <div className="steering">↪ steered: {(part.data as { text: string }).text}</div>;
  if (part.type === "data-turnkit-warning")
    return <div className="warning">⚠ {(part.data as { message: string }).message}</div>;
  if ("toolCallId" in part)
    return (
      <ToolView
        part={part as ToolPart}
        turnId={turnId}
        onAnswer={onAnswer}
        subAgents={subAgents.get((part as ToolPart).toolCallId) ?? []}
      />
    );
  return null;
}

const STATE_LABELS: Record<string, string> = {
  "input-streaming": "preparing",
  "input-available": "running",
  "approval-requested": "waiting for approval",
  "approval-responded": "answered",
  "output-available": "done",
  "output-error": "failed",
  "output-denied": "denied",
};

function ToolView({
  part,
  turnId,
  onAnswer,
  subAgents,
}: {
  part: ToolPart;
  turnId: string;
  onAnswer: MessageViewProps["onAnswer"];
  subAgents: readonly TurnkitSubAgentPart[];
}) {
  const name = part.type === "dynamic-tool" ? (part as { toolName: string }).toolName : part.type.slice("tool-".length);
  const [answering, setAnswering] = useState(false);
  const output = part.state === "output-available" ? (part.output as { content?: { text?: string }[] }) : undefined;
  const [failure, setFailure] = useState<string>();
  const answer = async (approved: boolean) => {
    setAnswering(true);
    setFailure(undefined);
    try {
      await onAnswer(turnId, part.approval!.id, approved);
    } catch (error) {
      setFailure(`the answer did not reach the server: ${(error as Error).message}`);
    } finally {
      setAnswering(false);
    }
  };
  return (
    <div className="tool-block">
      <details className="tool" data-testid="tool" data-state={part.state}>
        <summary>
          {name} <span className="tool-state">{STATE_LABELS[part.state] ?? part.state}</span>
        </summary>
        <pre>{JSON.stringify(part.input, null, 2)}</pre>
        {output && <pre>{output.content?.map((block) => block.text ?? "").join("")}</pre>}
        {part.state === "output-error" && <pre className="error">{part.errorText}</pre>}
        {part.state === "output-denied" && part.approval?.reason && <pre className="error">{part.approval.reason}</pre>}
      </details>
      {subAgents.map((subAgent) => (
        <SubAgentView key={subAgent.path.map((step) => step.toolCallId).join("/")} subAgent={subAgent} />
      ))}
      {part.state === "approval-requested" && (
        <div className="approval" data-testid="approval-card">
          <strong>{name}</strong> needs your approval
          <pre>{JSON.stringify(part.input)}</pre>
          <button type="button" data-testid="approve" disabled={answering} onClick={() => answer(true)}>
            Approve
          </button>
          <button type="button" data-testid="deny" disabled={answering} onClick={() => answer(false)}>
            Deny
          </button>
          {failure && (
            <p className="error" data-testid="approval-error">
              {failure}
            </p>
          )}
        </div>
      )}
    </div>
  );
}

/** A sub-agent's progress under the call that runs it: its status, its tool calls, and what it said. */
function SubAgentView({ subAgent }: { subAgent: TurnkitSubAgentPart }) {
  return (
    <div
      className="sub-agent"
      data-testid="sub-agent"
      data-status={subAgent.status}
      style={{ marginLeft: `${subAgent.path.length}em` }}
    >
      <div className="sub-agent-head">
        ↳ {subAgent.path.map((step) => step.agent).join(" › ")}: {subAgent.status} · {subAgent.steps} steps
      </div>
      {subAgent.tools.map((tool) => (
        <div key={tool.toolCallId} className="sub-agent-tool" data-testid="sub-agent-tool" data-state={tool.state}>
          {tool.toolName} <span className="tool-state">{tool.state}</span>
          {tool.output !== undefined && <pre>{tool.output}</pre>}
        </div>
      ))}
      {subAgent.text !== "" && (
        <div className="sub-agent-text" data-testid="sub-agent-text">
          {subAgent.text}
        </div>
      )}
      {subAgent.error && <pre className="error">{`${subAgent.error.code}: ${subAgent.error.message}`}</pre>}
    </div>
  );
}
