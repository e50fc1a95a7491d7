import type { Model } from "@mariozechner/pi-ai";
import { assertKnownKeys } from "@turnkit/agent-core/internal";
import { describeValue } from "@turnkit/agent-loop/internal";
import {
  COMPACTION_KEEP_RECENT_TOKENS,
  COMPACTION_RESERVE_TOKENS,
  COMPACTION_SUMMARY_CHAIN_MAX_TOKENS,
  COMPACTION_SUMMARY_MAX_TOKENS,
  COMPACTION_TOOL_RESULT_MAX_CHARS,
  DEFAULT_COMPACTION_PROMPT,
} from "../defaults.js";
import { ExtensionConfigError, ExtensionConfigErrorCode, assertOptionsObject } from "../extension-config-error.js";
import { assertExtensionId } from "../extension-id.js";
import type { CompactionRecord } from "./compaction-record.js";

/** Options of `createCompactionExtension`; every field is optional. */
export interface CompactionOptions {
  /** The extension's id. Default `"compaction"`. */
  id?: string;
  /** The context window in tokens. Default: the turn's `model.contextWindow` (no threshold compaction without one). */
  contextWindow?: number;
  /**
   * Tokens kept free for the answer, the system prompt and the tools: a
   * request estimated above `contextWindow - reserveTokens` is compacted
   * first. Default `COMPACTION_RESERVE_TOKENS`.
   */
  reserveTokens?: number;
  /**
   * Estimated tokens of the newest history kept verbatim (at most half of
   * `contextWindow - reserveTokens`). Default `COMPACTION_KEEP_RECENT_TOKENS`.
   */
  keepRecentTokens?: number;
  /** The model that writes summaries (a cheaper one is fine). Default: the turn's model. */
  summaryModel?: Model<any>;
  /**
   * The API key for `summaryModel`. Default: the turn's key when
   * `summaryModel` is of the turn's provider; for another provider none is
   * sent (pi-ai reads that provider's environment variable): the turn's key
   * never goes to another provider.
   */
  summaryApiKey?: string;
  /** `maxTokens` of a summary request. Default `COMPACTION_SUMMARY_MAX_TOKENS`. */
  summaryMaxTokens?: number;
  /** The instructions after the conversation in a summary request. Default `DEFAULT_COMPACTION_PROMPT`. */
  summaryPrompt?: string;
  /**
   * Estimated tokens the chain of summaries may reach before the next
   * compaction folds it into one summary. Default
   * `COMPACTION_SUMMARY_CHAIN_MAX_TOKENS`.
   */
  maxSummaryChainTokens?: number;
  /** Tool results longer than this are cut in a summary request. Default `COMPACTION_TOOL_RESULT_MAX_CHARS`. */
  toolResultMaxChars?: number;
  /** Compact when a request overflows the context window (the runner's overflow recovery). Default true. */
  recoverOverflow?: boolean;
  /** Told about each compaction and each failed summary; what it throws is ignored. */
  onCompaction?: (notice: CompactionNotice) => void;
}

/** What `onCompaction` is told. */
export type CompactionNotice =
  | {
      /** A compaction replaced the history. */
      type: "compacted";
      sessionId: string;
      turnId: string;
      requestIndex: number;
      record: CompactionRecord;
    }
  | {
      /**
       * The summary request failed (or was aborted, or answered nothing); the
       * history was left as it was and no other compaction is tried in this turn.
       */
      type: "summary_failed";
      sessionId: string;
      turnId: string;
      requestIndex: number;
      reason: CompactionRecord["reason"];
      /** The classified failure: `rate_limited`, `upstream`, `timeout`, ..., or `empty_summary`. */
      error: { code: string; message: string };
    };

/** {@link CompactionOptions} with every default filled in. */
export interface ResolvedCompactionOptions
  extends Required<Omit<CompactionOptions, "contextWindow" | "summaryModel" | "summaryApiKey" | "onCompaction">> {
  contextWindow?: number;
  summaryModel?: Model<any>;
  summaryApiKey?: string;
  onCompaction?: (notice: CompactionNotice) => void;
}

const OPTION_KEYS: Record<keyof CompactionOptions, true> = {
  id: true,
  contextWindow: true,
  reserveTokens: true,
  keepRecentTokens: true,
  summaryModel: true,
  summaryApiKey: true,
  summaryMaxTokens: true,
  summaryPrompt: true,
  maxSummaryChainTokens: true,
  toolResultMaxChars: true,
  recoverOverflow: true,
  onCompaction: true,
};

/**
 * Checks `options` and fills in the defaults. Throws `TurnkitConfigError`
 * (`unknown_key`) for a misspelt key and `ExtensionConfigError`
 * (`extension_init`) naming the field for a wrong value.
 */
export function resolveCompactionOptions(options: CompactionOptions): ResolvedCompactionOptions {
  const where = "createCompactionExtension";
  assertOptionsObject(options, where);
  assertKnownKeys(options, Object.keys(OPTION_KEYS), `${where} options`);
  const id = options.id ?? "compaction";
  assertExtensionId(id, where);
  const count = (field: keyof CompactionOptions, fallback: number, min: number) => {
    const value = options[field] ?? fallback;
    if (!Number.isInteger(value) || (value as number) < min) {
      throw new ExtensionConfigError(
        ExtensionConfigErrorCode.ExtensionInit,
        `${where}: ${field} must be an integer of at least ${min}, got ${describeValue(value)}`,
      );
    }
    return value as number;
  };
  if (options.contextWindow !== undefined) count("contextWindow", 0, 1);
  if (
    options.summaryPrompt !== undefined &&
    (typeof options.summaryPrompt !== "string" || !options.summaryPrompt.trim())
  ) {
    throw new ExtensionConfigError(
      ExtensionConfigErrorCode.ExtensionInit,
      `${where}: summaryPrompt must be non-empty text`,
    );
  }
  for (const field of ["summaryModel", "summaryApiKey", "onCompaction", "recoverOverflow"] as const) {
    const expected = {
      summaryModel: "object",
      summaryApiKey: "string",
      onCompaction: "function",
      recoverOverflow: "boolean",
    }[field];
    const value = options[field];
    if (value !== undefined && (typeof value !== expected || value === null)) {
      throw new ExtensionConfigError(
        ExtensionConfigErrorCode.ExtensionInit,
        `${where}: ${field} must be a ${expected === "object" ? "pi-ai Model" : expected}`,
      );
    }
  }
  return {
    id,
    contextWindow: options.contextWindow,
    reserveTokens: count("reserveTokens", COMPACTION_RESERVE_TOKENS, 0),
    keepRecentTokens: count("keepRecentTokens", COMPACTION_KEEP_RECENT_TOKENS, 1),
    summaryModel: options.summaryModel,
    summaryApiKey: options.summaryApiKey,
    summaryMaxTokens: count("summaryMaxTokens", COMPACTION_SUMMARY_MAX_TOKENS, 1),
    summaryPrompt: options.summaryPrompt ?? DEFAULT_COMPACTION_PROMPT,
    maxSummaryChainTokens: count("maxSummaryChainTokens", COMPACTION_SUMMARY_CHAIN_MAX_TOKENS, 1),
    toolResultMaxChars: count("toolResultMaxChars", COMPACTION_TOOL_RESULT_MAX_CHARS, 1),
    recoverOverflow: options.recoverOverflow ?? true,
    onCompaction: options.onCompaction,
  };
}
