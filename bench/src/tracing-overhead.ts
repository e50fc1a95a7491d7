/**
 * What OpenTelemetry tracing costs a runner turn: W2-300 (300 steps of 4
 * parallel no-op tool calls) with the runner's default tracer (the global
 * one, a no-op without a registered SDK) against the same turn recording
 * every span with the SDK's in-memory exporter. Rounds alternate the two;
 * medians are reported, with the overhead per step and per span.
 *
 * Run: `pnpm --filter @turnkit/bench bench:tracing` (add `-- --rounds N`).
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { PiTurnRunner } from "@turnkit/agent-core";
import { runTurnRunner } from "./contenders.js";
import { scriptedStreamFn } from "./scripted-stream.js";
import { W2_CALLS_PER_STEP, w2Responses } from "./w2-long-run.js";

const STEPS = 300;
const roundsFlag = process.argv.indexOf("--rounds");
const ROUNDS = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 15;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("bench");

type Variant = "no tracer" | "in-memory exporter";
const runners: Record<Variant, () => PiTurnRunner> = {
  "no tracer": () => new PiTurnRunner(),
  "in-memory exporter": () => new PiTurnRunner({ telemetry: { tracer } }),
};

async function timeOne(variant: Variant): Promise<{ ms: number; cpuMs: number; spans: number }> {
  exporter.reset();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await runTurnRunner(
    { prompt: "work", streamFn: scriptedStreamFn(w2Responses(STEPS)) },
    undefined,
    false,
    runners[variant](),
  );
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (result.outcome !== "completed") throw new Error(`${variant}: the turn ended ${result.outcome}`);
  return { ms, cpuMs: (used.user + used.system) / 1000, spans: exporter.getFinishedSpans().length };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const variants: Variant[] = ["no tracer", "in-memory exporter"];
for (const variant of variants) for (let warm = 0; warm < 3; warm++) await timeOne(variant);
const samples: Record<Variant, { ms: number[]; cpuMs: number[]; spans: number }> = {
  "no tracer": { ms: [], cpuMs: [], spans: 0 },
  "in-memory exporter": { ms: [], cpuMs: [], spans: 0 },
};
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
    const { ms, cpuMs, spans } = await timeOne(variant);
    samples[variant].ms.push(ms);
    samples[variant].cpuMs.push(cpuMs);
    samples[variant].spans = spans;
  }
}

console.log(`W2-${STEPS} (${STEPS} steps × ${W2_CALLS_PER_STEP} parallel tool calls), ${ROUNDS} rounds, medians`);
console.log("variant               wall ms   cpu ms   spans");
for (const variant of variants) {
  const { ms, cpuMs, spans } = samples[variant];
  console.log(
    `${variant.padEnd(20)} ${median(ms).toFixed(1).padStart(8)} ${median(cpuMs).toFixed(1).padStart(8)} ${String(spans).padStart(7)}`,
  );
}
const extraCpu = median(samples["in-memory exporter"].cpuMs) - median(samples["no tracer"].cpuMs);
const spans = samples["in-memory exporter"].spans;
console.log(
  `overhead with the in-memory exporter: ${((extraCpu * 1000) / STEPS).toFixed(0)} µs CPU per step (${((extraCpu * 1000) / spans).toFixed(1)} µs per span, ${(spans / STEPS).toFixed(1)} spans per step)`,
);
