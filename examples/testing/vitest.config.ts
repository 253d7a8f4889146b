import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The example's own test run (the project's suite runs test/ only): npx vitest run --config examples/testing/vitest.config.ts
// tsconfigPaths: in this repo "settle" and "settle/testing" are tsconfig `paths` to the sources (no
// build needed); in your project they resolve from node_modules and the option changes nothing.
export default defineConfig({
	resolve: { tsconfigPaths: true },
	test: { root: fileURLToPath(new URL(".", import.meta.url)), include: ["*.test.ts"] },
});
