import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that share one module graph per worker (`isolate: false`). Isolated, each of these
 * files spends most of its CPU re-importing src/ through Vite's module runner (about 1 s a file);
 * their tests run Settle in-process and leave nothing that another file sees (no process.env, cwd,
 * fake timer or module-level state that outlives a file; the pi examples that change the cwd, PATH
 * or pi's variables for one test restore them in a finally). Measured on 194 of these files (1605
 * tests), `npx vitest run <files>` on 2 busy cores: 205 s CPU isolated, 81 s shared; the 21 files
 * that joined last (machines, export.test, seven of bad-input, eight pi-examples): 51 s -> 35 s. A
 * file joins only after the shared project passed twice, once with `--sequence.shuffle` (which also
 * shuffles the tests inside a file). What kept files out, and what fixed it: prompt-operation.model
 * replayed its graph in whichever test ran first (shuffled, a 30 s test timeout; now a beforeAll);
 * export.test renamed the session another of its tests checks the default title of (now its own
 * session); bad-input/session-files expected no `.lock` at all in the temp folder, where other files'
 * unclosed managers keep theirs until the process exits (now only its own `<path>.lock`); store's
 * lock tests found the compiled store removed by another file's afterAll (compiledStore() compiles
 * again). Still isolated: pi-examples-rendered, because pi's tools-manager reads its tools folder
 * (`$PI_CODING_AGENT_DIR/bin`, where the fd shim is) once, when pi is first imported, and in a shared
 * worker another file imported pi first; pi-examples.test (sets SETTLE_AGENT_DIR). The parity and
 * pi-races folders (in-process pi peers: each isolated file imported pi and Settle anew, ~3 s of CPU)
 * joined with six files of extensions, tools and runtime that drive pi or Settle in-process; the pi
 * state they touch is put back per test (pi-ai's api registry by resetApiProviders, env keys, fake
 * timers). `npx vitest run test/parity` on 2 busy cores: 88 s wall, 72 s CPU isolated; 17 s, 19 s
 * shared. test/pi-races: 71 s, 49 s CPU -> 41 s, 31 s. The shared project (283 files) then passed
 * twice, once shuffled. Not shared by design: pi differentials whose pi reads process-wide state
 * once (pi's tools folder: the search differentials), process.chdir/HOME/env writers, checks of
 * process-wide handles, listeners or warnings (listener-errors), the replacement properties, and the
 * files whose CPU is in child processes (the cli, package and lifetime folders, bad-input's CLI
 * files, export-cli, export-page). Ten files of resources and security passed shared but saved no
 * CPU (their CPU is in child processes and extension loading), so they stay isolated. Joined later:
 * 17 in-process files of bad-input, cli (its three property tests that start no process), export,
 * extensions, runtime and tools; `/usr/bin/time npx vitest run <the 17>` on 2 busy cores: 16.9 s CPU
 * isolated, 10.3 s shared. The shared project (638 files) then ran twice, once shuffled, at load 12-19
 * on 2 cores: every joined file passed both times; three CPU-heavy tests of files shared before timed
 * out under that load (runtime.model's simple paths, runtime-graph, typebox1-static's type-check).
 */
const SHARED_FOLDERS = [
	...["session", "store", "compaction", "agent", "testing", "llm", "inspect", "settings", "schema", "recovery"],
	...["rpc", "machines", "parity", "pi-races"],
];
/** Files of mixed folders that run in-process Settle code alone (no process-wide state; pi peers only where pi's module state does not matter). */
const SHARED_FILES: Record<string, string[]> = {
	extensions: [
		...["api", "boundary", "dispatch", "emitters", "exec", "host", "pending-handlers", "pi-compat-exports"],
		...["runner.property", "settled-signal", "stale", "tool-result-content-not-array", "ui-without-host-ui"],
		...["pi-differential-divergences", "tool-result-is-error-not-boolean"],
		...["pi-examples-commands", "pi-examples-git", "pi-examples-inputs", "pi-examples-modes"],
		...["pi-examples-providers", "pi-examples-runtime", "pi-examples-state", "pi-examples-tools"],
	],
	export: ["export", "export-edges"],
	"bad-input": [
		...["cwd", "dispose-mid-operation", "extensions", "faults", "session-files", "settings-auth-resources"],
		...["tools-and-providers", "active-tool-names", "message-shapes", "prompt-arguments", "setters"],
	],
	cli: ["interactive-render.property", "session-lookup.property", "trace-recorder.property"],
	tools: [
		...["bash", "edit.property", "edit", "image-resize-cli", "image-resize.property", "image-resize"],
		...["read-broken-image-headers", "read", "registry.property", "registry", "search", "truncate.property"],
		...["truncate", "typebox1-params", "typebox1-static", "types", "write-ls", "pi-compat"],
		"read-image-resize",
	],
	runtime: [
		...["disposing-session-input", "find-model-hint", "fork-copies-branch", "pi-ai-install-hint", "projects"],
		...["replaced-session-message", "replacing-session-input", "runtime-graph", "runtime", "session-replaced"],
		...["sse-host", "switch-missing-file", "switch-to-unwritten-current-session", "unloaded-resource-loader"],
		...["switch-target-written-during-switch", "with-session-ui", "find-model-case", "reload-cut-off-rollback"],
		...["reload-during-replacement", "reload-overtaken-by-teardown", "reload-teardown.property", "settle-timeout"],
		"shutdown-timeout",
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
		// The helpers' cleanups after every test, in every file (test/cleanups.ts says why).
		setupFiles: ["test/cleanups.setup.ts"],
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
