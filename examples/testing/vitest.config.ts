import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The example's own test run (the project's suite runs test/ only): npx vitest run --config examples/testing/vitest.config.ts
export default defineConfig({
	test: { root: fileURLToPath(new URL(".", import.meta.url)), include: ["*.test.ts"] },
});
