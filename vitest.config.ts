import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Property and crash tests spawn processes and replay many scripts; keep the default pool.
		// Two test files at a time even on 2 cores (Vitest's default is cores - 1, i.e. ONE file on
		// CI): most files spend much of their time waiting on child processes (pi, settle, tsx, npm,
		// Chromium), so one worker leaves a core idle. Clean-clone .ci/run on 2 cores: vitest 493 s with
		// one worker (290 files), 288 s with two (305 files).
		maxWorkers: Math.max(2, availableParallelism() - 1),
		testTimeout: 30_000,
		hookTimeout: 30_000,
	},
});
