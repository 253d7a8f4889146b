import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Folders whose test files share one module graph per worker (`isolate: false`): isolated, each of
 * their files spends much of its CPU re-importing src/ (about 1 s a file, through Vite's module
 * runner), while their tests run in-process and leave nothing behind that another file sees (no
 * process.env, cwd, timer or module-level state that outlives a file). A folder joins only after it
 * passed shared twice, once with `--sequence.shuffle`. Not here, found order-dependent when shared:
 * test/extensions (pi's find tool keeps a module-level fd lookup from an earlier file: a pi-example
 * differential then disagrees) and test/machines (prompt-operation.model failed under a shuffled
 * shared run); test/runtime and test/tools (process.chdir, HOME, the search pins) were never shared.
 * Every other file keeps its own process.
 */
const SHARED = [
	"test/session",
	"test/store",
	"test/compaction",
	"test/agent",
	"test/testing",
	"test/llm",
	"test/inspect",
];

export default defineConfig({
	test: {
		// Property and crash tests spawn processes and replay many scripts; keep the default pool.
		// Two test files at a time even on 2 cores (Vitest's default is cores - 1, i.e. ONE file on
		// CI): most files spend much of their time waiting on child processes (pi, settle, tsx, npm,
		// Chromium), so one worker leaves a core idle. Clean-clone .ci/run on 2 cores: vitest 493 s with
		// one worker (290 files), 288 s with two (305 files).
		maxWorkers: Math.max(2, availableParallelism() - 1),
		testTimeout: 30_000,
		hookTimeout: 30_000,
		projects: [
			{
				extends: true,
				test: { name: "shared", include: SHARED.map((dir) => `${dir}/**/*.test.ts`), isolate: false },
			},
			{
				extends: true,
				test: {
					name: "isolated",
					include: ["test/**/*.test.ts"],
					exclude: [...configDefaults.exclude, ...SHARED.map((dir) => `${dir}/**`)],
				},
			},
		],
	},
});
