import { runAgentDemo, runTurnDemo } from "./quickstart.js";

const print = (line: string) => console.log(line);
console.log("── 1. Agent (packages/agent-loop) against the scripted model ──");
await runAgentDemo(print);
console.log("\n── 2. The same session as one runtime turn (packages/agent-core PiTurnRunner) ──");
await runTurnDemo(print);
