import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Folders whose test files share one module graph per worker (`isolate: false`): isolated, each of
 * their files spends much of its CPU re-importing src/ (about 1 s a file, through Vite's module
 * runner), while their tests run in-process and leave nothing behind that another file sees (no
 * process.env, cwd, timer or module-level state that outlives a file). A folder joins only after it
 * passed shared twice, once with `--sequence.shuffle`. Not here, found order-dependent when shared:
 * test/extensions' pi examples and differentials (minimal-mode's find disagreed with pi's after
 * another file in the same worker; cause not traced), test/machines
 * (prompt-operation.model failed under a shuffled shared run), test/export (a session title from
 * another file), test/bad-input (session-files lists the temp folder and saw another file's lock folders,
 * which proper-lockfile only removes at process exit); test/runtime and test/tools (process.chdir,
 * HOME, the search pins) and the child-process folders were not tried.
 * Every other file keeps its own process.
 */
const SHARED_FOLDERS = [
	...["session", "store", "compaction", "agent", "testing", "llm", "inspect", "settings", "schema", "recovery"],
	"rpc",
];
/** Files of mixed folders that run in-process Settle code alone (no pi peer, no process-wide state). */
const SHARED_FILES: Record<string, string[]> = {
	extensions: [
		...["api", "boundary", "dispatch", "emitters", "exec", "host", "pending-handlers", "pi-compat-exports"],
		...["runner.property", "stale", "tool-result-content-not-array", "ui-without-host-ui"],
	],
	tools: [
		...["bash", "edit.property", "edit", "image-resize-cli", "image-resize.property", "image-resize"],
		...["read-broken-image-headers", "read", "registry.property", "registry", "search", "truncate.property"],
		...["truncate", "typebox1-params", "typebox1-static", "types", "write-ls"],
	],
	runtime: [
		...["disposing-session-input", "find-model-hint", "fork-copies-branch", "pi-ai-install-hint", "projects"],
		...["replaced-session-message", "replacing-session-input", "runtime-graph", "runtime", "session-replaced"],
		...["sse-host", "switch-missing-file", "switch-to-unwritten-current-session", "unloaded-resource-loader"],
	],
};
const SHARED = [
	...SHARED_FOLDERS.map((dir) => `test/${dir}/**/*.test.ts`),
	...Object.entries(SHARED_FILES).flatMap(([dir, names]) => names.map((name) => `test/${dir}/${name}.test.ts`)),
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
				test: { name: "shared", include: SHARED, isolate: false },
			},
			{
				extends: true,
				test: {
					name: "isolated",
					include: ["test/**/*.test.ts"],
					exclude: [...configDefaults.exclude, ...SHARED],
				},
			},
		],
	},
});
