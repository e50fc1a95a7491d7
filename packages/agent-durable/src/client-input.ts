import type { TurnInputMessage } from "@turnkit/agent-core";
import { inputMessageProblem } from "@turnkit/agent-core/internal";
import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import { MAX_SEQ } from "./defaults.js";
import { invalidInput } from "./errors.js";

/*
 * Checks of what callers hand the client, made before anything is read or
 * stored: a malformed value is the caller's mistake, reported at once as an
 * `invalid_input` error naming the field, never as a Postgres error, a
 * `TypeError`, a wait that never ends, or a turn that fails later.
 */

/**
 * Throws `invalid_input` naming `field` unless `value` is a message a turn
 * can take (`{ text, images?, batchId? }`: `text` a string, `images` image
 * blocks `{ type: "image", data, mimeType }`, `batchId` a string), the same
 * check the runner makes, so a message accepted here never fails the turn
 * that receives it.
 */
export function assertTurnInputMessage(value: unknown, field: string): asserts value is TurnInputMessage {
  const problem = inputMessageProblem(value);
  if (problem) throw invalidInput(`${field}${problem}`);
}

/**
 * Throws `invalid_input` naming the field unless each of `fields` of
 * `options` is omitted or a non-empty string without NUL characters (the
 * names of a deployment: `appName`, `workerId`, a schema...).
 */
export function assertOptionalNames(options: object, fields: readonly string[]): void {
  for (const field of fields) {
    const value = (options as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "")
      throw invalidInput(`${field} must be a non-empty string, got ${describeValue(value)}`);
    assertStorableText(value, field);
  }
}

/** Throws `invalid_input` naming `field` unless `value` is a string Postgres can store: no NUL character. */
export function assertStorableText(value: string, field: string): void {
  if (value.includes("\u0000")) throw invalidInput(`${field} must not contain NUL characters`);
}

/** `value` as JSON text; throws `invalid_input` naming `field` when it has none (a cycle, a BigInt, a getter that throws). */
export function jsonTextOf(value: unknown, field: string): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw invalidInput(`${field} must be plain JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The options object of a call (`{}` when omitted); throws `invalid_input` naming `name` for anything but an object. */
export function optionsOf<T extends object>(value: T | undefined, name: string): T {
  if (value === undefined) return {} as T;
  if (!isRecord(value)) throw invalidInput(`${name} must be an object, got ${describeValue(value)}`);
  return value;
}

/** `value`, or `fallback` when omitted; throws `invalid_input` naming `field` unless it is a seq or 0 (an integer from 0). */
export function seqOption(value: unknown, field: string, fallback = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_SEQ)
    throw invalidInput(`${field} must be an integer from 0 to ${MAX_SEQ}, got ${describeValue(value)}`);
  return value as number;
}

/** `value`, or `fallback` when omitted; throws `invalid_input` naming `field` unless it is an integer from 1 to `max`. */
export function countOption(value: unknown, field: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > max)
    throw invalidInput(`${field} must be an integer from 1 to ${max}, got ${describeValue(value)}`);
  return value as number;
}

/** `value`, or `fallback` when omitted; throws `invalid_input` naming `field` unless it is a positive finite number. */
export function millisecondsOption(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0)
    throw invalidInput(`${field} must be a positive number of milliseconds, got ${describeValue(value)}`);
  return value;
}

/** `value` when omitted or an `AbortSignal`; throws `invalid_input` naming `field` otherwise. */
export function signalOption(value: unknown, field: string): AbortSignal | undefined {
  if (value === undefined || value instanceof AbortSignal) return value;
  throw invalidInput(`${field} must be an AbortSignal, got ${describeValue(value)}`);
}
