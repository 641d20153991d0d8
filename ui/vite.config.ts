import { defineConfig } from "vite";

// `npm run dev` proxies the REST API to a local `lode serve` (management port 8089, plain HTTP
// when server.conf says so); the production build is embedded in the lode binary.
export default defineConfig({
  build: { target: "es2022", sourcemap: false, chunkSizeWarningLimit: 400 },
  server: {
    proxy: {
      "/services": { target: "http://127.0.0.1:8000" },
      "/servicesNS": { target: "http://127.0.0.1:8000" },
    },
  },
});
