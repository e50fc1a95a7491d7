import { fileURLToPath } from "node:url";

/**
 * Every default of the coding-agent example, in one place. Other files take
 * these as option defaults; nothing else hard-codes them.
 */

/** Delay before each streamed event of the scripted model when stdin is not a terminal. */
export const SCRIPTED_EVENT_DELAY_MS = 12;

/** Delay before each streamed event of the scripted model in the interactive terminal (slow enough to type). */
export const INTERACTIVE_EVENT_DELAY_MS = 30;

/** The wait the scripted "provider" asks for when it rate-limits the demo once. */
export const SCRIPTED_RETRY_AFTER_MS = 2100;

/** The tools the permission extension asks about before they run. */
export const PERMISSION_GUARDED_TOOLS: readonly string[] = ["bash", "write"];

/**
 * The context window the scripted demo tells its compaction about: small,
 * so that the demo session compacts once, before its final report.
 */
export const SCRIPTED_CONTEXT_WINDOW = 8_192;

/** The demo's compaction reserve: with that window, a request above 3,192 tokens is compacted first. */
export const SCRIPTED_COMPACTION_RESERVE_TOKENS = 5_000;

/** Tokens of the newest history the demo's compaction keeps verbatim: about its last step. */
export const SCRIPTED_COMPACTION_KEEP_TOKENS = 200;

/** The id of the scripted model that writes compaction summaries (the demo's "cheaper model"). */
export const SCRIPTED_SUMMARY_MODEL_ID = "scripted-summariser";

/** Where session files go when `--session` is not given: `<tmpdir>/<this>/sessions`. */
export const SESSION_DIR_NAME = "turnkit-coding-agent";

/** Spinner frames of running tools on a terminal. */
export const SPINNER_FRAMES: readonly string[] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** How often the spinner advances. */
export const SPINNER_INTERVAL_MS = 80;

/** Terminal width assumed when the stream does not report one. */
export const FALLBACK_COLUMNS = 80;

/** Longest tool title (command, path, pattern) shown on a tool line. */
export const TOOL_TITLE_MAX_CHARS = 60;

/** Longest short result shown on a tool line. */
export const TOOL_RESULT_MAX_CHARS = 70;

/** Longest line of a running tool's output shown next to its spinner. */
export const TOOL_PROGRESS_MAX_CHARS = 60;

/** Extension id of the MCP server the scripted demo starts (an issue tracker with one bug report). */
export const DEMO_MCP_SERVER_ID = "issue-tracker";

/** That server's script, run with plain node. */
export const DEMO_MCP_SERVER_SCRIPT = fileURLToPath(
  new URL("../fixtures/issue-tracker-mcp-server.mjs", import.meta.url),
);

/** The explore sub-agent stops after this many model requests (its call then gets an error result). */
export const EXPLORE_MAX_STEPS = 6;
