/**
 * Malformed arguments must not alter any object's prototype: the built-in
 * prototypes keep their own keys, `({}).polluted` stays undefined, and the
 * arguments a tool receives have an ordinary prototype.
 */
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "prototypes unchanged";

const BUILT_INS: [string, object][] = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
  ["Number.prototype", Number.prototype],
  ["Boolean.prototype", Boolean.prototype],
  ["Promise.prototype", Promise.prototype],
];

/** The own keys of the built-in prototypes, to compare after a run. */
export type PrototypeSnapshot = Map<string, string[]>;

export function snapshotPrototypes(): PrototypeSnapshot {
  return new Map(BUILT_INS.map(([name, prototype]) => [name, Reflect.ownKeys(prototype).map(String).sort()]));
}

/** Throws when a built-in prototype gained or lost a key, or an empty object inherits `polluted`. */
export function checkPrototypesUnchanged(before: PrototypeSnapshot): void {
  for (const [name, prototype] of BUILT_INS) {
    const now = Reflect.ownKeys(prototype).map(String).sort();
    const was = before.get(name)!;
    if (now.join("\u0000") !== was.join("\u0000")) {
      const added = now.filter((key) => !was.includes(key));
      const removed = was.filter((key) => !now.includes(key));
      throw new InvariantViolation(
        INVARIANT,
        `${name} changed: added ${describeValue(added)}, removed ${describeValue(removed)}`,
      );
    }
  }
  const probes: [string, unknown][] = [
    ["({}).polluted", ({} as Record<string, unknown>).polluted],
    ["[].polluted", ([] as unknown as Record<string, unknown>).polluted],
    ["Object.create(Object.prototype).polluted", (Object.create(Object.prototype) as Record<string, unknown>).polluted],
  ];
  for (const [expression, value] of probes) {
    if (value !== undefined) throw new InvariantViolation(INVARIANT, `${expression} is ${describeValue(value)}`);
  }
}

/** Throws when arguments a tool received have an unusual prototype or inherit `polluted`. */
export function checkArgumentsPrototype(received: readonly unknown[]): void {
  received.forEach((args, index) => {
    if (typeof args !== "object" || args === null) return;
    const prototype = Object.getPrototypeOf(args);
    if (prototype !== Object.prototype && prototype !== null && prototype !== Array.prototype) {
      throw new InvariantViolation(
        INVARIANT,
        `arguments #${index} received by a tool have prototype ${describeValue(prototype)}`,
      );
    }
    if ((args as Record<string, unknown>).polluted !== undefined && !Object.hasOwn(args, "polluted")) {
      throw new InvariantViolation(INVARIANT, `arguments #${index} inherit "polluted"`);
    }
  });
}
