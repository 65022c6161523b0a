// Builds the standalone harness (perf/harness.html) used by the perf check and the screenshots:
// the real app wired to the fake client (window.__cairnFake).
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { resolve } from "node:path";

export default defineConfig({
  base: "./",
  root: resolve(import.meta.dirname, "perf"),
  plugins: [react()],
  build: {
    outDir: resolve(import.meta.dirname, "perf/dist"),
    emptyOutDir: true,
    modulePreload: false,
    target: "es2022",
    chunkSizeWarningLimit: 4000,
    rolldownOptions: { input: [resolve(import.meta.dirname, "perf/harness.html"), resolve(import.meta.dirname, "perf/parallel.html")] },
  },
});
