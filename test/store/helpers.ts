import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, StopReason, ToolResultMessage, Usage, UserMessage } from "../../src/llm/types.js";
import type { SessionManager } from "../../src/store/session-manager.js";
import { afterEachTest } from "../cleanups.js";

const dirs: string[] = [];
const managers: SessionManager[] = [];

/** A fresh temp directory, removed after the test. */
export function tempDir(prefix = "settle-store-"): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	dirs.push(dir);
	return dir;
}

/** Registers a manager to be closed after the test (releases its lock). */
export function track<T extends SessionManager>(manager: T): T {
	managers.push(manager);
	return manager;
}

/**
 * Closes the tracked managers and removes the temp directories now (also done after each test). A
 * property that makes directories in every run calls it per run: otherwise a long soak
 * (`PI_DIFF_RUNS_SCALE=40`) leaves thousands for the afterEach hook, which then exceeds its timeout.
 */
export function releaseAll(): void {
	for (const manager of managers.splice(0)) manager.close();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

afterEachTest(releaseAll);

export const usage: Usage = {
	input: 10,
	output: 5,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 15,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export function user(text: string, timestamp = 1_700_000_000_000): UserMessage {
	return { role: "user", content: text, timestamp };
}

export function assistant(
	text: string,
	options: { provider?: string; model?: string; stopReason?: StopReason; toolCall?: string } = {},
): AssistantMessage {
	return {
		role: "assistant",
		content: [
			{ type: "text", text },
			...(options.toolCall
				? [{ type: "toolCall" as const, id: options.toolCall, name: "read", arguments: { path: "a.txt" } }]
				: []),
		],
		api: "faux",
		provider: options.provider ?? "faux",
		model: options.model ?? "faux-1",
		usage,
		stopReason: options.stopReason ?? (options.toolCall ? "toolUse" : "stop"),
		timestamp: 1_700_000_000_001,
	};
}

export function toolResult(toolCallId: string, text: string): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId,
		toolName: "read",
		content: [{ type: "text", text }],
		isError: false,
		timestamp: 1_700_000_000_002,
	};
}
