import type { TurnkitDataParts } from "@turnkit/ui-stream";
import { useState } from "react";
import type { QuestionAnswer } from "./server-api.js";

/** A question an MCP server asked in the middle of a tool call (a `data-turnkit-elicitation` part). */
export type Question = TurnkitDataParts["turnkit-elicitation"];

/** One field of the flat schema MCP allows for an answer. */
interface Field {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
}

interface QuestionCardProps {
  question: Question;
  /** False once the turn went past the question (its call has a result, or the turn ended): it is shown as asked. */
  open: boolean;
  onReply: (answer: QuestionAnswer) => Promise<void>;
}

/**
 * The question with a field per property of its schema, Send (accept with
 * the values, numbers and booleans typed as the schema says) and Decline.
 * After a reply, or once the turn went on, only the question stays.
 */
export function QuestionCard({ question, open, onReply }: QuestionCardProps) {
  const fields = Object.entries((question.requestedSchema.properties ?? {}) as Record<string, Field>);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [state, setState] = useState<"asking" | "sending" | "sent">("asking");
  const [failure, setFailure] = useState<string>();
  if (!open || state === "sent")
    return (
      <div className="question answered" data-testid="question-answered">
        ? {question.message}
      </div>
    );
  const reply = async (answer: QuestionAnswer) => {
    setState("sending");
    setFailure(undefined);
    try {
      await onReply(answer);
      setState("sent");
    } catch (error) {
      setFailure((error as Error).message);
      setState("asking");
    }
  };
  const content = () =>
    Object.fromEntries(
      fields.map(([name, field]) => {
        const value = values[name] ?? (field.type === "boolean" ? false : "");
        return [name, field.type === "number" || field.type === "integer" ? Number(value) : value];
      }),
    );
  return (
    <form
      className="approval question"
      data-testid="question-card"
      onSubmit={(event) => {
        event.preventDefault();
        void reply({ action: "accept", content: content() });
      }}
    >
      <strong>{question.serverName}</strong> asks: {question.message}
      {fields.map(([name, field]) => (
        <label key={name}>
          {field.title ?? name}{" "}
          {field.type === "boolean" ? (
            <input
              type="checkbox"
              data-testid={`question-field-${name}`}
              checked={values[name] === true}
              onChange={(event) => setValues({ ...values, [name]: event.target.checked })}
            />
          ) : field.enum ? (
            <select
              data-testid={`question-field-${name}`}
              value={String(values[name] ?? "")}
              onChange={(event) => setValues({ ...values, [name]: event.target.value })}
            >
              <option value="" disabled>
                choose…
              </option>
              {field.enum.map((choice) => (
                <option key={choice}>{choice}</option>
              ))}
            </select>
          ) : (
            <input
              data-testid={`question-field-${name}`}
              type={field.type === "number" || field.type === "integer" ? "number" : "text"}
              value={String(values[name] ?? "")}
              placeholder={field.description}
              onChange={(event) => setValues({ ...values, [name]: event.target.value })}
            />
          )}
        </label>
      ))}
      <div>
        <button type="submit" data-testid="question-send" disabled={state === "sending"}>
          Send
        </button>
        <button
          type="button"
          data-testid="question-decline"
          disabled={state === "sending"}
          onClick={() => void reply({ action: "decline" })}
        >
          Decline
        </button>
      </div>
      {failure && <p className="error">{failure}</p>}
    </form>
  );
}
