import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { vi } from "vitest";
import { afterEachTest } from "../cleanups.js";

/** Absolute path of a fixture project under test/fixtures/projects. */
export function fixtureProject(name: string): string {
	return resolve(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "projects", name);
}

const created: string[] = [];
afterEachTest(() => {
	for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp folder removed after the test. */
export function tempDir(prefix = "settle-env-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	created.push(dir);
	return dir;
}

/** Writes files (relative path → content) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, string>): void {
	for (const [path, content] of Object.entries(files)) {
		const full = join(root, path);
		mkdirSync(dirname(full), { recursive: true });
		writeFileSync(full, content);
	}
}

/** Copies a fixture project into a temp folder (so tests may write) and returns its path. */
export function copyFixture(name: string): string {
	const target = join(tempDir("settle-fixture-"), name);
	cpSync(fixtureProject(name), target, { recursive: true });
	return target;
}

/** A temp workspace with an empty agent folder and an empty project folder. */
export function workspace(): { root: string; agentDir: string; cwd: string } {
	const root = tempDir();
	const agentDir = join(root, "agent");
	const cwd = join(root, "project");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(cwd, { recursive: true });
	return { root, agentDir, cwd };
}

/** One minute before local midnight: a clock a run could straddle. */
export const LAST_MINUTE_OF_DAY = new Date(2025, 0, 31, 23, 59, 59);

/**
 * Runs `build` with the clock (`Date` only; timers stay real) stopped at `at`: pi's system prompt
 * reads `new Date()` and so does Settle's by default, and two prompts built a moment apart on either
 * side of local midnight would carry different dates. Both see the same day here.
 *
 * @example
 * ```ts
 * const [piText, ours] = atTime(LAST_MINUTE_OF_DAY, () => [pi.buildSystemPrompt(options), buildSystemPrompt(options)]);
 * ```
 */
export function atTime<T>(at: Date, build: () => T): T {
	vi.useFakeTimers({ toFake: ["Date"], now: at });
	try {
		return build();
	} finally {
		vi.useRealTimers();
	}
}
