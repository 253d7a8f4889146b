import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExtensionRunner, type ExtensionRunner } from "../../src/extensions/runner.js";
import type { ExtensionError, ExtensionFactory, ExtensionLoadError } from "../../src/extensions/types.js";
import { afterEachTest } from "../cleanups.js";

const created: string[] = [];
afterEachTest(() => {
	for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp folder removed after the test. */
export function tempDir(prefix = "settle-ext-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	created.push(dir);
	return dir;
}

export interface TestRunner {
	runner: ExtensionRunner;
	/** Errors reported through onError, in order. */
	errors: ExtensionError[];
	loadErrors: ExtensionLoadError[];
}

/** A runner over inline factories (`<inline:1>`, `<inline:2>`, …), unbound, recording its errors. */
export async function runnerWith(...factories: ExtensionFactory[]): Promise<TestRunner> {
	const { runner, errors: loadErrors } = await createExtensionRunner([], { cwd: tmpdir(), inlineFactories: factories });
	const errors: ExtensionError[] = [];
	runner.onError((error) => errors.push(error));
	return { runner, errors, loadErrors };
}

/** Errors without stacks, for exact comparisons. */
export function withoutStacks(errors: readonly ExtensionError[]): Omit<ExtensionError, "stack">[] {
	return errors.map(({ stack: _stack, ...rest }) => rest);
}
