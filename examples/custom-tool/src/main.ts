import { runCustomToolDemo } from "./custom-tool.js";

const outcome = await runCustomToolDemo((line) => console.log(line));
if (outcome.kind !== "completed") process.exitCode = 1;
