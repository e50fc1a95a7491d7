/**
 * Constants of the testing entry, in one place so tests and docs can name
 * them instead of repeating literals.
 */

/** `api` of the scripted model and of messages built by {@link assistantMessage}. */
export const SCRIPTED_API = "scripted";

/** `provider` of the scripted model and of messages built by {@link assistantMessage}. */
export const SCRIPTED_PROVIDER = "scripted";

/** `id` of the scripted model and the `model` field of messages built by {@link assistantMessage}. */
export const SCRIPTED_MODEL_ID = "scripted-model";

/** Context window the scripted model declares. */
export const SCRIPTED_CONTEXT_WINDOW = 128_000;

/** Output token limit the scripted model declares. */
export const SCRIPTED_MAX_TOKENS = 16_384;

/**
 * Characters per `toolcall_delta` when a response sets no `chunkSize`; more
 * for arguments longer than {@link MAX_DEFAULT_TOOL_ARGUMENTS_DELTAS} such
 * chunks.
 */
export const DEFAULT_TOOL_ARGUMENTS_CHUNK_SIZE = 10;

/**
 * At most this many `toolcall_delta`s for one call's arguments when a
 * response sets no `chunkSize`: each delta's partial carries the arguments
 * parsed from all the JSON so far, as pi-ai providers do, so a long
 * argument streamed 10 characters at a time would cost time that grows with
 * its square.
 */
export const MAX_DEFAULT_TOOL_ARGUMENTS_DELTAS = 100;

/** `errorMessage` of a response ended by an abort, as pi-ai providers write it. */
export const ABORTED_ERROR_MESSAGE = "Request was aborted";

/** `errorMessage` of an `errorAfter` fault that names no message. */
export const DEFAULT_FAULT_ERROR_MESSAGE = "Scripted stream error";

/** How many timers `VirtualClock.runAll()` fires before it gives up. */
export const MAX_RUN_ALL_TIMERS = 10_000;
