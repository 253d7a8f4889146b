import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentToolResult, AgentToolUpdateCallback } from "../../src/agent/types.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";
import { afterEachTest } from "../cleanups.js";

const created: string[] = [];

afterEachTest(async () => {
	await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temp folder, removed after the test; `files` maps relative paths to contents. */
export async function tempProject(files: Record<string, string | Buffer> = {}): Promise<string> {
	const dir = await mkdtemp(join(tmpdir(), "settle-tools-"));
	created.push(dir);
	for (const [path, content] of Object.entries(files)) {
		const full = join(dir, path);
		await mkdir(dirname(full), { recursive: true });
		await writeFile(full, content);
	}
	return dir;
}

/** Runs a tool definition the way the agent does (no context). */
export function run<TDetails = unknown>(
	tool: AnyToolDefinition,
	params: Record<string, unknown>,
	options: { signal?: AbortSignal; onUpdate?: AgentToolUpdateCallback } = {},
): Promise<AgentToolResult<TDetails>> {
	return tool.execute("call-1", params, options.signal, options.onUpdate, undefined);
}

/** The text of the first content block. */
export function text(result: AgentToolResult): string {
	const block = result.content[0];
	if (block?.type !== "text") throw new Error(`expected a text block, got ${JSON.stringify(block)}`);
	return block.text;
}

/** The message a tool call fails with. */
export async function failure(promise: Promise<unknown>): Promise<string> {
	try {
		await promise;
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
	throw new Error("expected the tool call to fail");
}

/**
 * Whether a process still runs. A zombie (exited, not yet reaped by its parent) counts as gone: it
 * executes nothing and holds no resources but its table slot.
 */
export function isProcessRunning(pid: number): boolean {
	const stat = `/proc/${pid}/stat`;
	if (existsSync("/proc/self/stat")) {
		try {
			const fields = readFileSync(stat, "utf-8");
			const state = fields.slice(fields.lastIndexOf(")") + 2).split(" ")[0];
			return state !== "Z" && state !== "X";
		} catch {
			return false;
		}
	}
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

export const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/tools/${name}`, import.meta.url));
