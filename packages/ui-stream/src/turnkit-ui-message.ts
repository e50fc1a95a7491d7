import type {
  ElicitationRequiredPayload,
  ProtocolUsage,
  RuntimeWarningPayload,
  SubAgentStep,
  TurnError,
  TurnStatus,
} from "@turnkit/protocol";
import type { UIMessage, UIMessageChunk } from "ai";

/**
 * The metadata of the assistant message a turn becomes. It arrives with
 * the stream's `start` chunk, grows with `message-metadata` chunks as
 * steps finish, and is final on the `finish` chunk; the AI SDK merges the
 * pieces into `message.metadata`.
 */
export interface TurnkitMessageMetadata {
  /** The host's session of the turn. */
  sessionId: string;
  /** The turn this message is. */
  turnId: string;
  /** `running` until the turn's terminal status arrives. */
  status: TurnStatus;
  /**
   * The turn's total usage so far: tokens and `cost` (every provider
   * attempt counted), updated after each step and final at the end. Absent
   * until the first step finished.
   */
  usage?: ProtocolUsage;
  /** Steps (model requests) finished so far. */
  steps?: number;
  /** Why the turn failed; present exactly when `status` is `failed`. */
  error?: TurnError;
}

/** One tool call a sub-agent made, as its part shows it. */
export interface TurnkitSubAgentToolCall {
  /** The sub-agent model's id of the call. */
  toolCallId: string;
  toolName: string;
  /** `running` until its result is in the sub-agent's history; then `done`, or `failed` for an error result. */
  state: "running" | "done" | "failed";
  /** The text of its result, once it has one. */
  output?: string;
}

/**
 * What one sub-agent call of a turn did so far, as the data of its
 * `data-turnkit-sub-agent` part: one part per sub-agent call, sent again
 * (same id, replaced in place by the AI SDK) whenever its status changes
 * or a message of it is done; never once per streamed word.
 */
export interface TurnkitSubAgentPart {
  /** The turn's own tool call the sub-agent runs under (for a nested sub-agent, the outermost call). */
  toolCallId: string;
  /** From the turn down to this sub-agent, one step per sub-agent call (outermost first). */
  path: SubAgentStep[];
  /** This sub-agent's name (the last step's `agent`). */
  agent: string;
  /** The sub-agent turn's id. */
  turnId: string;
  /** Its status: `running`, then how it ended. A sub-agent cut short by the end of its parent may stay `running`. */
  status: TurnStatus;
  /** Its model requests answered so far. */
  steps: number;
  /** The text of its answers so far, each answer's text on a line of its own. */
  text: string;
  /** Its tool calls in the order it made them. */
  tools: TurnkitSubAgentToolCall[];
  /** Why it failed, when `status` is `failed`. */
  error?: TurnError;
}

/**
 * Turnkit events the AI SDK has no part for, as data parts
 * (`data-turnkit-…` in the stream, `message.parts` entries of that type):
 *
 * - `turnkit-warning`: a `runtime.warning` payload (a retry wait, dropped
 *   images); the turn went on.
 * - `turnkit-steering`: a message steered into the running turn, in the
 *   place the model received it.
 * - `turnkit-elicitation`: an `action.required` of kind `elicitation` (an
 *   MCP server asks the person for input); answer it with its `requestId`.
 *   The same part (same id) comes again with `outcome` once its wait ended.
 * - `turnkit-sub-agent`: what one sub-agent call of the turn did so far
 *   ({@link TurnkitSubAgentPart}: its status, steps, text, tool calls and
 *   their results), one part per call (id `sub-agent-<tool call ids of its
 *   path>`), sent again whenever that changes; a page shows it under the
 *   tool call `toolCallId`. The turn's own parts never include a
 *   sub-agent's text, tool calls or end.
 * - `turnkit-approval`: the answer to a tool call's approval request, which
 *   the AI SDK's stream has no chunk for; {@link withApprovalAnswers} puts
 *   it on the call's part (`approval.approved`, `approval.reason`).
 * - `turnkit-superseded`: after a crash, a model request that was streaming
 *   was sent again; the parts streamed by the interrupted attempt (those
 *   whose `providerMetadata.turnkit.messageId` is in `messageIds`) are
 *   superseded by what follows. {@link withoutSupersededParts} drops them.
 */
export interface TurnkitDataParts {
  /** A `runtime.warning`: something went wrong and the turn recovered. */
  "turnkit-warning": RuntimeWarningPayload;
  /** A message steered into the turn while it ran. */
  "turnkit-steering": { text: string };
  /**
   * A question for the person (`action.required` of kind `elicitation`),
   * with the schema of its answer. Once its wait ended the part is sent
   * again, with `outcome` (`answered`, `timed_out`, `aborted`, `refused`,
   * `withdrawn` after a crash): the question is closed, while its call may
   * still run. A page asks it only while `outcome` is absent.
   */
  "turnkit-elicitation": ElicitationRequiredPayload & { outcome?: string };
  /** What one sub-agent call of the turn did so far, to show under its call. */
  "turnkit-sub-agent": TurnkitSubAgentPart;
  /** How the approval request `approvalId` of the call `toolCallId` was answered; `reason` when it was not granted. */
  "turnkit-approval": TurnkitApprovalAnswer;
  /** Parts of these Turnkit messages came from an interrupted attempt and are replaced by what follows. */
  "turnkit-superseded": { fromSeq: number; toSeq: number; messageIds: string[] };
  // An index signature, so the map satisfies the AI SDK's `UIDataTypes`.
  [name: string]: unknown;
}

/**
 * The answer to a tool call's approval request. Asked before the call ran:
 * `approved`, where `false` covers a person's no, no answer in time and a
 * turn aborted while it waited; then `reason` is what the call's result
 * says (why it did not run), when it says anything. Asked by the running
 * tool itself (`askHost`): `askedByTool`, and how its wait ended
 * (`outcome`: `answered`, `timed_out`, `aborted`, …); the answer went to
 * the tool, whose output says what came of it.
 */
export type TurnkitApprovalAnswer =
  | { approvalId: string; toolCallId: string; approved: boolean; reason?: string }
  | { approvalId: string; toolCallId: string; askedByTool: true; outcome: string };

/** The AI SDK `UIMessage` a Turnkit turn becomes (`useChat<TurnkitUIMessage>`). */
export type TurnkitUIMessage = UIMessage<TurnkitMessageMetadata, TurnkitDataParts>;

/** One chunk of the AI SDK UI message stream, typed with Turnkit's metadata and data parts. */
export type TurnkitUIMessageChunk = UIMessageChunk<TurnkitMessageMetadata, TurnkitDataParts>;

/**
 * A chunk with the `seq` of the Turnkit event it came from. `lastOfEvent`
 * marks the event's last chunk: a reader that saw it has seen the whole
 * event, so resuming after that `seq` loses and repeats nothing.
 */
export interface SequencedUIMessageChunk {
  /** The `seq` of the `RuntimeEvent` this chunk came from. */
  seq: number;
  /** True on the last chunk an event produced. */
  lastOfEvent: boolean;
  /** The chunk itself. */
  chunk: TurnkitUIMessageChunk;
}

/**
 * Where a part came from, in its `providerMetadata.turnkit` (text and
 * reasoning parts) or `callProviderMetadata.turnkit` (tool parts): the
 * Turnkit assistant message id (one per model request) whose stream made it.
 */
export interface TurnkitPartOrigin {
  /** The `messageId` of the `stream.resp` events the part was built from. */
  messageId: string;
}
