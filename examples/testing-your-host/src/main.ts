import { runHostDemo } from "./host-demo.js";

await runHostDemo((line) => console.log(line));
