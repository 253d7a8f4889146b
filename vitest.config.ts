import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that share one module graph per worker (`isolate: false`). Isolated, each of these
 * files spends most of its CPU re-importing src/ through Vite's module runner (about 1 s a file);
 * their tests run Settle in-process and leave nothing that another file sees (no process.env, cwd,
 * fake timer or module-level state that outlives a file). Measured on these 194 files (1605 tests),
 * `npx vitest run <files>` on 2 busy cores: 205 s CPU isolated, 81 s shared. A file joins only after
 * the shared project passed twice, once with `--sequence.shuffle`. Found order-dependent when shared,
 * so isolated: test/machines (prompt-operation.model, shuffled), test/export (a session title from
 * another file), test/bad-input (session-files lists the temp folder and saw another file's lock
 * folders, which proper-lockfile removes at process exit), test/extensions' pi examples (minimal-mode's
 * find disagreed with pi's after another file; cause not traced). Not shared by design: pi
 * differentials and peers, process.chdir/HOME/env writers, checks of process-wide handles or
 * listeners, the replacement properties, and the child-process folders (cli, package, parity,
 * pi-races, lifetime). Ten files of resources and security passed shared but saved no CPU (their
 * CPU is in child processes and extension loading), so they stay isolated.
 */
const SHARED_FOLDERS = [
	...["session", "store", "compaction", "agent", "testing", "llm", "inspect", "settings", "schema", "recovery"],
	...["rpc", "machines", "export"],
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
