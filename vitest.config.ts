import { defineConfig } from "vitest/config";
import projects from "./vitest.workspace.ts";

export default defineConfig({
  test: {
    projects,
    // Vitest's default on a 2-core machine is one worker, which runs the files one after the other while
    // many of them wait on Postgres, child processes or a browser; three keep both cores busy.
    maxWorkers: 3,
    reporters: ["default"],
  },
});
