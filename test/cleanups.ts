/**
 * Cleanups that test helper modules register once, run after every test by the setup file
 * `test/cleanups.setup.ts`. A helper module's own top-level `afterEach` was registered only by the
 * first test file that imported it in a worker of the shared project (`isolate: false` keeps
 * modules across files), so from the second file on its temp folders were never removed.
 */
const cleanups = new Set<() => unknown>();

/** Runs `cleanup` after every test of every file (register it once, at module level). */
export function afterEachTest(cleanup: () => unknown): void {
	cleanups.add(cleanup);
}

/** Runs the registered cleanups, in registration order (called by the setup file). */
export async function runCleanups(): Promise<void> {
	for (const cleanup of cleanups) await cleanup();
}

const fileCleanups = new Set<() => unknown>();

/** Runs `cleanup` after every test file, after the file's own `afterAll` hooks (register it once, at module level). */
export function afterEachFile(cleanup: () => unknown): void {
	fileCleanups.add(cleanup);
}

/** Runs the registered file cleanups, in registration order (called by the setup file). */
export async function runFileCleanups(): Promise<void> {
	for (const cleanup of fileCleanups) await cleanup();
}
