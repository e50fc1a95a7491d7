/**
 * `pnpm fuzz`: the fuzz properties with a large budget.
 *
 *   pnpm fuzz                          20,000 cases, seed from the clock
 *   pnpm fuzz --runs 50000 --seed 7    a bigger budget, a chosen base seed
 *   pnpm fuzz --property runner        one property only
 *   pnpm fuzz --property agent --seed 123 --path "4:1:0"   replay a failure
 *   pnpm fuzz --include-known-bugs     also generate what fuzz/src/known-bugs.ts excludes
 *   pnpm fuzz --stall-seconds 60       report and kill a run whose case blocks its thread for 60 s (default 120)
 *
 * The budget is shared between the properties by weight and cut into
 * batches; batch k runs with seed `base + k`, so the whole run covers the
 * seed range `base .. base + batches - 1` and any batch can be rerun alone.
 * A failure prints the property, seed, path, counterexample and the command
 * that replays it, and the process exits with code 1.
 */
import fc from "fast-check";
import { KNOWN_BUGS } from "./known-bugs.js";
import { type FuzzProperty, asyncPropertyOf, createFuzzProperties } from "./properties.js";
import { startStallWatch } from "./stall-watch.js";
import { unhandledRejections } from "./unhandled-rejections.js";

interface FuzzOptions {
  runs: number;
  seed: number;
  batch: number;
  property: string | undefined;
  path: string | undefined;
  includeKnownBugs: boolean;
  /** How long the run's thread may stay blocked (a case that never yields) before the run is reported and killed. */
  stallSeconds: number;
}

const USAGE =
  "usage: pnpm fuzz [--runs N] [--seed S] [--batch N] [--property NAME] [--path P] [--include-known-bugs] [--stall-seconds N]";

function parseOptions(argv: readonly string[]): FuzzOptions {
  const options: FuzzOptions = {
    runs: 20_000,
    seed: Date.now() % 1_000_000_000,
    batch: 500,
    property: undefined,
    path: undefined,
    includeKnownBugs: false,
    stallSeconds: 120,
  };
  const integer = (flag: string, value: string | undefined): number => {
    const parsed = Number(value);
    if (value === undefined || !Number.isSafeInteger(parsed) || parsed < 0)
      throw new Error(`${flag} needs a non-negative integer, got ${value}\n${USAGE}`);
    return parsed;
  };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!;
    const value = argv[index + 1];
    switch (flag) {
      case "--":
        continue;
      case "--runs":
        options.runs = integer(flag, value);
        index++;
        break;
      case "--seed":
        options.seed = integer(flag, value);
        index++;
        break;
      case "--batch":
        options.batch = Math.max(1, integer(flag, value));
        index++;
        break;
      case "--property":
        options.property = value;
        index++;
        break;
      case "--path":
        options.path = value;
        index++;
        break;
      case "--stall-seconds":
        options.stallSeconds = Math.max(1, integer(flag, value));
        index++;
        break;
      case "--include-known-bugs":
        options.includeKnownBugs = true;
        break;
      case "--help":
      case "-h":
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown flag ${flag}\n${USAGE}`);
    }
  }
  return options;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function replayCommand(property: string, seed: number, path: string | undefined, includeKnownBugs: boolean): string {
  const parts = ["pnpm fuzz", `--property ${property}`, `--seed ${seed}`];
  if (path !== undefined) parts.push(`--path "${path}"`);
  if (includeKnownBugs) parts.push("--include-known-bugs");
  return parts.join(" ");
}

interface Failure {
  property: string;
  seed: number;
  path: string | undefined;
  report: string;
}

/** Cases of each property: the budget split by weight, at least one batch each. */
function budgets(properties: readonly FuzzProperty[], runs: number): Map<FuzzProperty, number> {
  const totalWeight = properties.reduce((sum, property) => sum + property.fuzzWeight, 0);
  const shares = new Map<FuzzProperty, number>();
  let assigned = 0;
  properties.forEach((property, index) => {
    const share =
      index === properties.length - 1 ? runs - assigned : Math.round((runs * property.fuzzWeight) / totalWeight);
    shares.set(property, Math.max(0, share));
    assigned += share;
  });
  return shares;
}

async function replay(options: FuzzOptions, properties: readonly FuzzProperty[]): Promise<number> {
  const property = properties.find((candidate) => candidate.name === options.property);
  if (!property)
    throw new Error(`--path needs --property with one of: ${properties.map((candidate) => candidate.name).join(", ")}`);
  console.log(`replaying ${property.name}, seed ${options.seed}, path ${options.path}`);
  const details = await fc.check(asyncPropertyOf(property), {
    seed: options.seed,
    path: options.path,
    numRuns: options.batch,
  });
  if (!details.failed) {
    console.log("passed: the counterexample no longer fails");
    return 0;
  }
  console.log(fc.defaultReportMessage(details));
  if (details.errorInstance instanceof Error) console.log(details.errorInstance.stack ?? details.errorInstance.message);
  return 1;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  unhandledRejections();
  const all = createFuzzProperties({ avoidKnownBugs: !options.includeKnownBugs });
  if (options.path !== undefined) return replay(options, all);
  const properties = options.property ? all.filter((property) => property.name === options.property) : all;
  if (properties.length === 0)
    throw new Error(`no property named ${options.property}; known: ${all.map((property) => property.name).join(", ")}`);

  const shares = budgets(properties, options.runs);
  const totalBatches = [...shares.values()].reduce((sum, runs) => sum + Math.ceil(runs / options.batch), 0);
  console.log(
    `pnpm fuzz: ${options.runs} cases over ${properties.map((property) => `${property.name} (${shares.get(property)})`).join(", ")}`,
  );
  console.log(
    `seeds ${options.seed} .. ${options.seed + totalBatches - 1} (${totalBatches} batches of up to ${options.batch} cases)`,
  );
  if (options.includeKnownBugs)
    console.log(
      "generating known bugs too:",
      Object.values(KNOWN_BUGS)
        .map((bug) => bug.id)
        .join(", "),
    );
  else if (Object.keys(KNOWN_BUGS).length > 0)
    console.log(
      "steering around known bugs:",
      Object.values(KNOWN_BUGS)
        .map((bug) => bug.id)
        .join(", "),
    );

  const started = performance.now();
  const watch = startStallWatch(options.stallSeconds * 1000);
  const failures: Failure[] = [];
  let batchIndex = 0;
  let cases = 0;
  for (const property of properties) {
    let remaining = shares.get(property)!;
    const propertyStarted = performance.now();
    let propertyCases = 0;
    while (remaining > 0) {
      const numRuns = Math.min(options.batch, remaining);
      const seed = options.seed + batchIndex;
      batchIndex++;
      remaining -= numRuns;
      const batchStarted = performance.now();
      watch.batchStarted(
        `[${batchIndex}/${totalBatches}] ${property.name} seed ${seed}; replay: ${replayCommand(property.name, seed, undefined, options.includeKnownBugs)} --runs ${numRuns}`,
      );
      const details = await fc.check(asyncPropertyOf(property, watch.caseStarted), { seed, numRuns });
      cases += details.numRuns;
      propertyCases += details.numRuns;
      const status = details.failed ? "FAILED" : "ok";
      console.log(
        `[${batchIndex}/${totalBatches}] ${property.name} seed ${seed}: ${status}, ${details.numRuns} cases in ${seconds(performance.now() - batchStarted)} (total ${cases} cases, ${seconds(performance.now() - started)})`,
      );
      if (details.failed) {
        const path = details.counterexamplePath ?? undefined;
        failures.push({ property: property.name, seed, path, report: fc.defaultReportMessage(details) ?? "" });
        console.log(fc.defaultReportMessage(details));
        if (details.errorInstance instanceof Error)
          console.log(details.errorInstance.stack ?? details.errorInstance.message);
        console.log(`replay: ${replayCommand(property.name, seed, path, options.includeKnownBugs)}`);
        // Skip the rest of this property's budget; its seeds stay reserved so the range is stable.
        batchIndex += Math.ceil(remaining / options.batch);
        remaining = 0;
      }
    }
    console.log(`${property.name}: ${propertyCases} cases in ${seconds(performance.now() - propertyStarted)}`);
  }

  watch.stop();
  const elapsed = performance.now() - started;
  console.log("");
  console.log(`cases: ${cases}; seeds ${options.seed} .. ${options.seed + totalBatches - 1}; time ${seconds(elapsed)}`);
  if (failures.length === 0) {
    console.log("all properties held");
    return 0;
  }
  console.log(`${failures.length} propert${failures.length === 1 ? "y" : "ies"} failed:`);
  for (const failure of failures) {
    console.log(`  ${failure.property}: seed ${failure.seed}, path ${failure.path}`);
    console.log(`    replay: ${replayCommand(failure.property, failure.seed, failure.path, options.includeKnownBugs)}`);
  }
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
