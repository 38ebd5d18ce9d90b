import { defineConfig } from 'vite';

// The Tauri shell loads `dist/` in release builds and the dev server in `tauri dev`.
export default defineConfig({
  clearScreen: false,
  server: {
    port: 5173,
    strictPort: true,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
  },
});
