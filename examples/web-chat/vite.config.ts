import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

// The page is served by examples/durable-server from dist/; the workspace's packages are compiled from source.
export default defineConfig({
  root: import.meta.dirname,
  mode: "production",
  // Also under a test runner, whose NODE_ENV is "test": the page is always the production build of React.
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  // and JSX compiled for it: Vite picks development JSX (jsxDEV, which React's production build does not have)
  // whenever NODE_ENV is not "production", as under a test runner.
  oxc: { jsx: { development: false } },
  plugins: [react()],
  resolve: { conditions: ["source", ...defaultClientConditions] },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
  logLevel: "warn",
});
