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
  default?: string | number | boolean;
  /** A choice of values (its labels in `enumNames`, the older form of titled choices). */
  enum?: string[];
  enumNames?: string[];
  /** A choice of values, each with its label. */
  oneOf?: { const: string; title?: string }[];
}

/** The choices of a field offered as a list (value and label), or `undefined` for a typed-in value. */
function choicesOf(field: Field): { value: string; label: string }[] | undefined {
  if (field.oneOf) return field.oneOf.map((choice) => ({ value: choice.const, label: choice.title ?? choice.const }));
  return field.enum?.map((value, index) => ({ value, label: field.enumNames?.[index] ?? value }));
}

interface QuestionCardProps {
  question: Question;
  /** False once the question's wait ended, its call has a result, or the turn ended: it is shown as asked. */
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
  const required = new Set((question.requestedSchema.required ?? []) as string[]);
  // The schema's defaults are filled in; the person may change them.
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(
      fields.flatMap(([name, field]) =>
        field.default === undefined
          ? []
          : [[name, typeof field.default === "boolean" ? field.default : String(field.default)]],
      ),
    ),
  );
  const [state, setState] = useState<"asking" | "sending" | "sent">("asking");
  const [failure, setFailure] = useState<string>();
  if (!open || state === "sent")
    return (
      <div className="question answered" data-testid="question-answered">
        ? {question.message}
        {question.outcome !== undefined && question.outcome !== "answered" && (
          <em> ({question.outcome.replace("_", " ")})</em>
        )}
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
  // A field left empty is left out of the answer (a number is not 0, a text not ""), unless the schema
  // requires it: a required box left unticked is false, a required text "" (the server's check says so).
  const content = () =>
    Object.fromEntries(
      fields.flatMap(([name, field]) => {
        const value = values[name] ?? (field.type === "boolean" ? false : "");
        if (value === "" || (value === false && values[name] === undefined))
          return required.has(name) ? [[name, value]] : [];
        return [[name, field.type === "number" || field.type === "integer" ? Number(value) : value]];
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
          ) : choicesOf(field) ? (
            <select
              data-testid={`question-field-${name}`}
              value={String(values[name] ?? "")}
              onChange={(event) => setValues({ ...values, [name]: event.target.value })}
            >
              <option value="" disabled={required.has(name)}>
                choose…
              </option>
              {choicesOf(field)!.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
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
