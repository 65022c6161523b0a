// Production build of the webview: fixed file names so the extension can reference
// dist/assets/index.js and dist/assets/index.css under a nonce CSP.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  base: "./",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    cssCodeSplit: false,
    modulePreload: false,
    target: "es2022",
    chunkSizeWarningLimit: 4000,
    rolldownOptions: {
      output: {
        entryFileNames: "assets/index.js",
        chunkFileNames: "assets/[name].js",
        assetFileNames: (info) =>
          (info.names ?? []).some((n) => n.endsWith(".css")) ? "assets/index.css" : "assets/[name][extname]",
      },
    },
  },
});
