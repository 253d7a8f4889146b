/**
 * The session file of pi#4570, rebuilt entry for entry: two compactions in sequence, the inner one
 * written between a tool call and a result, so the latest compaction's kept window holds a
 * `toolResult` whose call exists nowhere in the context.
 */
import { writeFileSync } from "node:fs";

/** The tool call id the orphaned result answers (its call was summarized away). */
export const ORPHAN_CALL_ID = "call_3poVp9h6A0k9TWGGw5rULjKe";
/** Its text, unique in the file. */
export const ORPHAN_RESULT_TEXT = "late output of the long build";

const usage = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/**
 * Writes the report's shape to `file` (a pi v3 session recorded in `cwd`, answered by `model` of
 * `provider`), and returns the file's text.
 */
export function writeOrphanSessionFile(file: string, cwd: string, provider = "faux", model = "faux-1"): string {
	let clock = Date.parse("2026-05-15T10:00:00.000Z");
	const at = () => {
		clock += 1000;
		return new Date(clock).toISOString();
	};
	const lines: Record<string, unknown>[] = [
		{ type: "session", version: 3, id: "019e1a2b-0000-7000-8000-00000000a570", timestamp: at(), cwd },
	];
	let parentId: string | null = null;
	const add = (id: string, entry: Record<string, unknown>) => {
		lines.push({ ...entry, id, parentId, timestamp: at() });
		parentId = id;
	};
	const assistant = (content: unknown[], stopReason = "toolUse") => ({
		type: "message",
		message: { role: "assistant", content, api: "faux", provider, model, usage, stopReason, timestamp: clock },
	});
	const call = (id: string, name: string, args: Record<string, unknown>) => ({
		type: "toolCall",
		id,
		name,
		arguments: args,
	});
	const result = (toolCallId: string, toolName: string, text: string) => ({
		type: "message",
		message: {
			role: "toolResult",
			toolCallId,
			toolName,
			content: [{ type: "text", text }],
			isError: false,
			timestamp: clock,
		},
	});
	add("a0000001", { type: "model_change", provider, modelId: model });
	add("a0000002", {
		type: "message",
		message: { role: "user", content: [{ type: "text", text: "Refactor the parser" }], timestamp: clock },
	});
	add("a0000003", assistant([call(ORPHAN_CALL_ID, "bash", { command: "npm run build" })]));
	// Line 3500 of the report: the latest compaction keeps from here.
	add("3320c88b", assistant([call("call_wd0xj", "write", { path: "a.ts", content: "x" })]));
	add("b0ed53d2", result("call_wd0xj", "write", "Successfully wrote a.ts"));
	add("7c0bad43", assistant([call("call_kHp2E", "edit", { path: "a.ts", edits: [] })]));
	// The inner compaction, written while tools were still running.
	add("7607344c", {
		type: "compaction",
		summary: "## Goal\nRefactor the parser (older summary)",
		firstKeptEntryId: "a0000002",
		tokensBefore: 90000,
	});
	add("c77debb8", result(ORPHAN_CALL_ID, "bash", ORPHAN_RESULT_TEXT));
	add("6b7821e9", assistant([call("call_e", "edit", { path: "b.ts", edits: [] })]));
	add("0d448a00", result("call_e", "edit", "Successfully replaced text in b.ts"));
	add("0d448af0", assistant([{ type: "text", text: "The parser is refactored." }], "stop"));
	add("67e51f6a", {
		type: "compaction",
		summary: "## Goal\nRefactor the parser (latest summary)",
		firstKeptEntryId: "3320c88b",
		tokensBefore: 95000,
	});
	const text = `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
	writeFileSync(file, text);
	return text;
}

/** The pi#8667 file's older summary: written mid-pair, it must never reach a request. */
export const STALE_SUMMARY_TEXT = "Older summary written while make ran";

/**
 * The session file of pi#8667 (pi 0.84.3), rebuilt: an auto-compaction fired while a `bash` call
 * ran, so its entry sits between the call and its result; a later compaction keeps from before it,
 * which makes the stale compaction an ordinary kept entry inside the call/result pair.
 */
export function writeStaleCompactionSessionFile(file: string, cwd: string): string {
	let clock = Date.parse("2026-08-26T10:00:00.000Z");
	const at = () => {
		clock += 1000;
		return new Date(clock).toISOString();
	};
	const lines: Record<string, unknown>[] = [
		{ type: "session", version: 3, id: "019e1a2b-0000-7000-8000-000000008667", timestamp: at(), cwd },
	];
	let parentId: string | null = null;
	const add = (id: string, entry: Record<string, unknown>) => {
		lines.push({ ...entry, id, parentId, timestamp: at() });
		parentId = id;
	};
	const user = (text: string) => ({
		type: "message",
		message: { role: "user", content: [{ type: "text", text }], timestamp: clock },
	});
	const assistant = (content: unknown[], stopReason = "stop") => ({
		type: "message",
		message: {
			role: "assistant",
			content,
			api: "faux",
			provider: "faux",
			model: "faux-1",
			usage,
			stopReason,
			timestamp: clock,
		},
	});
	add("m0000001", { type: "model_change", provider: "faux", modelId: "faux-1" });
	add("u0000001", user("first task"));
	add("a0000001", assistant([{ type: "text", text: "first task done" }]));
	add("u0000002", user("build it"));
	// The report's ids: the call, the compaction written mid-pair, then the call's result.
	add(
		"3dc050cd",
		assistant([{ type: "toolCall", id: "toolu_011", name: "bash", arguments: { command: "make" } }], "toolUse"),
	);
	add("f19c1c29", {
		type: "compaction",
		summary: STALE_SUMMARY_TEXT,
		firstKeptEntryId: "u0000002",
		tokensBefore: 90000,
		fromHook: true,
	});
	add("9d6ad5c4", {
		type: "message",
		message: {
			role: "toolResult",
			toolCallId: "toolu_011",
			toolName: "bash",
			content: [{ type: "text", text: "build finished" }],
			isError: false,
			timestamp: clock,
		},
	});
	add("a0000003", assistant([{ type: "text", text: "The build is done." }]));
	add("u0000004", user("and run the tests"));
	add("a0000004", assistant([{ type: "text", text: "The tests pass." }]));
	// The later compaction keeps from before the stale one.
	add("c0000002", {
		type: "compaction",
		summary: "Latest summary: the first task is done",
		firstKeptEntryId: "u0000002",
		tokensBefore: 95000,
	});
	const text = `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
	writeFileSync(file, text);
	return text;
}
