import { EventStream, type ToolResultMessage } from "@mariozechner/pi-ai";
import { streamAssistantResponse } from "./assistant-response.js";
import { LoopRun } from "./loop-run.js";
import { assertAgentContext, assertAgentMessages } from "./message-checks.js";
import { ToolResultText } from "./synthetic-messages.js";
import { executeToolBatch } from "./tool-batch.js";
import { refuseToolCalls } from "./tool-call-results.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  AgentToolCall,
  StreamFn,
} from "./types.js";

/**
 * Starts a run with new prompt messages. The prompts are added to a copy of
 * the context (the caller's context is never changed) and announced with
 * `message_start`/`message_end`; then the loop requests responses and runs
 * tool calls until the model stops or a queue, hook or signal ends the run.
 *
 * Returns at once; the stream yields every event and always ends with
 * `agent_end`, whose messages `result()` resolves to. It never errors: a
 * failure inside the run (a stream function or callback that throws) ends it
 * with an `error` assistant message. Turnkit addition: throws a `TypeError`
 * naming the field, synchronously and before any event, when a prompt is
 * malformed (as `Agent.prompt` checks them) or the context is (its
 * `messages`, `tools` or `systemPrompt`, as the `Agent`'s state setters
 * check them: `agentLoop: context.messages[3].content must be ...`).
 */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  assertAgentMessages(prompts, "agentLoop", "prompts");
  assertAgentContext(context, "agentLoop");
  const stream = createAgentEventStream();
  void startRun(prompts, context, config, (event) => stream.push(event), signal, streamFn).then((messages) =>
    stream.end(messages),
  );
  return stream;
}

/**
 * Continues a run from the context without adding a message, e.g. to retry
 * after an error. Throws synchronously when the context is empty or ends
 * with an assistant message (a provider would reject the request), and
 * (Turnkit addition) with a `TypeError` naming the field when the context
 * is malformed, as {@link agentLoop} does.
 */
export function agentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  assertAgentContext(context, "agentLoopContinue");
  assertContinuable(context);
  const stream = createAgentEventStream();
  void continueRun(context, config, (event) => stream.push(event), signal, streamFn).then((messages) =>
    stream.end(messages),
  );
  return stream;
}

/**
 * {@link agentLoop} with an awaited event sink instead of a stream: each
 * event is handed to `emit` and the loop waits for it before going on.
 * Resolves to the messages the run added; rejects only with a `TypeError`
 * for a malformed prompt or context (checked before any event).
 */
export async function runAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  assertAgentMessages(prompts, "runAgentLoop", "prompts");
  assertAgentContext(context, "runAgentLoop");
  return startRun(prompts, context, config, emit, signal, streamFn);
}

/**
 * {@link runAgentLoop} without its checks, for a caller that checked the
 * prompts and context where they came in (the `Agent`, whose setters and
 * `prompt` check them).
 */
export function startRun(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  const run = new LoopRun(
    { ...context, messages: [...context.messages, ...prompts] },
    [...prompts],
    config,
    emit,
    signal,
    streamFn,
  );
  return runSteps(run, prompts);
}

/**
 * {@link agentLoopContinue} with an awaited event sink. Resolves to the
 * messages the run added; rejects only for a context that is malformed (a
 * `TypeError` naming the field) or cannot be continued (checked before any
 * event).
 */
export async function runAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  assertAgentContext(context, "runAgentLoopContinue");
  assertContinuable(context);
  return continueRun(context, config, emit, signal, streamFn);
}

/** {@link runAgentLoopContinue} without its checks, for the `Agent` (see {@link startRun}). */
export function continueRun(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  const run = new LoopRun({ ...context, messages: [...context.messages] }, [], config, emit, signal, streamFn);
  return runSteps(run, []);
}

function assertContinuable(context: AgentContext): void {
  const last = context.messages[context.messages.length - 1];
  if (!last) throw new Error("Cannot continue: no messages in context");
  if (last.role === "assistant") throw new Error("Cannot continue from message role: assistant");
}

function createAgentEventStream(): EventStream<AgentEvent, AgentMessage[]> {
  return new EventStream<AgentEvent, AgentMessage[]>(
    (event) => event.type === "agent_end",
    (event) => (event.type === "agent_end" ? event.messages : []),
  );
}

/**
 * A run from `agent_start` to `agent_end` (behaviour L1): the prompts
 * announced in the first step, then an outer loop for follow-ups around an
 * inner loop that runs while tool calls continue or messages are pending.
 * Resolves to the messages the run added; never rejects: a failure closes
 * the run (behaviour L9).
 */
async function runSteps(run: LoopRun, prompts: readonly AgentMessage[]): Promise<AgentMessage[]> {
  const { config } = run;
  try {
    await run.emit({ type: "agent_start" });
    await run.emit({ type: "turn_start" });
    for (const prompt of prompts) await run.emitWholeMessage(prompt);
    let firstStep = true;
    let pending: AgentMessage[] = (await config.getSteeringMessages?.()) ?? [];

    steps: while (true) {
      let continueWithTools = true;
      while (continueWithTools || pending.length > 0) {
        if (firstStep) firstStep = false;
        else await run.emit({ type: "turn_start" });

        for (const message of pending) {
          run.record(message);
          await run.emitWholeMessage(message);
        }
        pending = [];

        const message = await streamAssistantResponse(run);
        if (message.stopReason === "error" || message.stopReason === "aborted") {
          // Behaviour L3: the run ends at once; calls of a failed response are never executed.
          await run.emit({ type: "turn_end", message, toolResults: [] });
          break steps;
        }

        const toolCalls = message.content.filter((block): block is AgentToolCall => block.type === "toolCall");
        if (message.stopReason === "length" && toolCalls.length > 0) {
          // Behaviour L11: arguments may be cut off; answer each call without running it.
          const toolResults = await refuseToolCalls(run, toolCalls, ToolResultText.truncated);
          await run.emit({ type: "turn_end", message, toolResults });
          break steps;
        }

        let toolResults: ToolResultMessage[] = [];
        continueWithTools = false;
        if (toolCalls.length > 0) {
          const batch = await executeToolBatch(run, message, toolCalls);
          toolResults = batch.results;
          if (batch.aborted) {
            // Behaviour L10: no request after an aborted batch.
            await run.emit({ type: "turn_end", message, toolResults });
            break steps;
          }
          continueWithTools = !batch.terminate;
        }

        await run.emit({ type: "turn_end", message, toolResults });
        if (
          await config.shouldStopAfterTurn?.({
            message,
            toolResults,
            context: run.context,
            newMessages: run.newMessages,
          })
        )
          break steps;

        pending = (await config.getSteeringMessages?.()) ?? [];
        if (
          pending.length > 0 &&
          config.shouldStopAfterSteering &&
          (await config.shouldStopAfterSteering({
            steeringMessages: pending,
            message,
            context: run.context,
            newMessages: run.newMessages,
          }))
        ) {
          // Behaviour L6c: keep the steering in the transcript, but send no request for it.
          for (const message of pending) {
            run.record(message);
            await run.emitWholeMessage(message);
          }
          break steps;
        }
      }

      const followUps = (await config.getFollowUpMessages?.()) ?? [];
      if (followUps.length === 0) break;
      pending = followUps;
    }
    await run.emit({ type: "agent_end", messages: run.newMessages });
  } catch (error) {
    await run.closeAfterFailure(error);
  }
  return run.newMessages;
}
