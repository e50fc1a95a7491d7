/** The compaction extension's options are checked when it is created, naming the field. */
import { TurnkitConfigError } from "@turnkit/agent-core";
import { describe, expect, it } from "vitest";
import { type CompactionOptions, ExtensionConfigError, createCompactionExtension } from "../../src/index.js";
import { thrown } from "../fixtures.js";

describe("createCompactionExtension options", () => {
  it("a misspelt key is unknown_key, naming the key meant", () => {
    const error = thrown(() => createCompactionExtension({ reserveToken: 10 } as CompactionOptions));
    expect(TurnkitConfigError.isInstance(error) && error.code).toBe("unknown_key");
    expect(error.message).toContain("did you mean 'reserveTokens'?");
  });

  it.each([
    [{ reserveTokens: -1 }, "reserveTokens must be an integer of at least 0, got -1"],
    [{ keepRecentTokens: 0 }, "keepRecentTokens must be an integer of at least 1, got 0"],
    [{ contextWindow: 1.5 }, "contextWindow must be an integer of at least 1, got 1.5"],
    [{ summaryMaxTokens: "4096" }, 'summaryMaxTokens must be an integer of at least 1, got "4096"'],
    // Values JSON cannot show: as given, never "null" or a serialiser's TypeError.
    [{ contextWindow: Number.NaN }, "contextWindow must be an integer of at least 1, got NaN"],
    [{ reserveTokens: Number.POSITIVE_INFINITY }, "reserveTokens must be an integer of at least 0, got Infinity"],
    [{ summaryPrompt: "  " }, "summaryPrompt must be non-empty text"],
    [{ onCompaction: "log" }, "onCompaction must be a function"],
    [{ summaryModel: "gpt-4o-mini" }, "summaryModel must be a pi-ai Model"],
  ])("%j is refused with extension_init naming the field", (options, message) => {
    const error = thrown(() => createCompactionExtension(options as CompactionOptions));
    expect(ExtensionConfigError.isInstance(error) && error.code).toBe("extension_init");
    expect(error.message).toBe(`createCompactionExtension: ${message}`);
  });

  it("a bigint count is refused naming the field, not with JSON's TypeError", () => {
    const error = thrown(() => createCompactionExtension({ keepRecentTokens: 10n } as unknown as CompactionOptions));
    expect(ExtensionConfigError.isInstance(error) && error.code).toBe("extension_init");
    expect(error.message).toBe(
      "createCompactionExtension: keepRecentTokens must be an integer of at least 1, got bigint",
    );
  });

  it("a bad id is invalid_extension_id; a good one names the extension", () => {
    expect(thrown(() => createCompactionExtension({ id: "Compaction!" })).code).toBe("invalid_extension_id");
    expect(createCompactionExtension({ id: "summaries" }).id).toBe("summaries");
    expect(createCompactionExtension().id).toBe("compaction");
  });
});
