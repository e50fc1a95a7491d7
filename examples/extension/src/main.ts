import { runExtensionDemo } from "./extension-demo.js";

const outcome = await runExtensionDemo((line) => console.log(line));
if (outcome.kind !== "completed") process.exitCode = 1;
