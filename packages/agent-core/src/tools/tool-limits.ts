/**
 * Limits of the built-in tools. They bound what one call can put into the
 * model's context or how long it may run.
 *
 * TODO(defaults): these belong in `../defaults.ts` (one place for every
 * default); they live here until that file gains a tools section.
 */

/** `read` returns at most this many lines per call (page on with `offset`). */
export const READ_MAX_LINES = 2000;

/** `read` returns at most this many bytes of text per call. */
export const READ_MAX_BYTES = 50 * 1024;

/** `read` and `grep` cut a single line longer than this many characters. */
export const MAX_LINE_CHARS = 2000;

/** `read` refuses images larger than this (base64 grows them by a third). */
export const READ_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** `bash` stops a command after this long unless the call asks for another timeout. */
export const BASH_DEFAULT_TIMEOUT_MS = 120 * 1000;

/** `bash` accepts a per-call timeout of at most this long. */
export const BASH_MAX_TIMEOUT_MS = 10 * 60 * 1000;

/** `bash` keeps the last this-many bytes of combined stdout and stderr. */
export const BASH_MAX_OUTPUT_BYTES = 50 * 1024;

/** After killing a command's process group, `bash` waits at most this long for its pipes to close. */
export const BASH_KILL_GRACE_MS = 2000;

/** `grep` returns at most this many matching lines unless the call asks for fewer. */
export const GREP_DEFAULT_MAX_MATCHES = 100;

/** `grep` skips files larger than this. */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** `glob` returns at most this many paths unless the call asks for fewer. */
export const GLOB_DEFAULT_MAX_RESULTS = 500;

/** Directories `grep` and `glob` never descend into. */
export const WALK_SKIPPED_DIRECTORIES: readonly string[] = ["node_modules", ".git"];
