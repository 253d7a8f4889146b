import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Property and crash tests spawn processes and replay many scripts; keep the default pool.
		testTimeout: 30_000,
		hookTimeout: 30_000,
	},
});
