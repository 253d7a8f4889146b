/**
 * Session files holding parseable entries whose fields have the wrong type (written by hand, by
 * another tool, or by pi 0.73.1, which stores what `pi.sendMessage` is given): a custom_message
 * whose content is `42`, a user message whose content list holds `null`, a session name that is a
 * number. Each is reported on open (`invalid_field`, naming the line and how it is read) and read so
 * the session stays usable: it answers, compacts, counts tokens, renders its tree and exports. The
 * file keeps every byte it had; new entries go after them.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSessionTree } from "../../src/cli/interactive-tree.js";
import { estimateTokens } from "../../src/extensions/pi-compat-compaction.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { useCliProject } from "../cli/helpers.js";
import { closeSession, lastAssistant, openSession, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

const BAD_ID = "bad00001";

/**
 * A session with two exchanges written by a real session, then `fields` as one more entry (id
 * {@link BAD_ID}, a child of the last entry). Returns the file, its bytes and the entry's line.
 */
async function sessionWith(fields: Record<string, unknown>): Promise<{ file: string; bytes: Buffer; line: number }> {
	const session = await openSession(ws);
	ws.reply("one", "two");
	await session.prompt("first");
	await session.prompt("second");
	const file = session.sessionFile!;
	closeSession(session);
	const lines = readFileSync(file, "utf8").trim().split("\n");
	const parentId = JSON.parse(lines.at(-1)!).id as string;
	const entry = { id: BAD_ID, parentId, timestamp: new Date().toISOString(), ...fields };
	writeFileSync(file, `${lines.join("\n")}\n${JSON.stringify(entry)}\n`);
	return { file, bytes: readFileSync(file), line: lines.length + 1 };
}

/** The file still starts with `bytes`; returns the roles / types of what was appended after them. */
function appendedAfter(file: string, bytes: Buffer): string[] {
	const after = readFileSync(file);
	expect(after.subarray(0, bytes.length).equals(bytes)).toBe(true);
	return after
		.subarray(bytes.length)
		.toString("utf8")
		.split("\n")
		.filter(Boolean)
		.map((text) => {
			const entry = JSON.parse(text);
			return entry.type === "message" ? entry.message.role : entry.type;
		});
}

/** Compaction keeps almost nothing, so `compact()` summarizes the bad entry too. */
function compactingSettings(): SettingsManager {
	return SettingsManager.inMemory({ compaction: { keepRecentTokens: 1 } });
}

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 };
const costs = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
const customMessage = (content: unknown) => ({ type: "custom_message", customType: "note", content, display: true });
const message = (role: string, content: unknown) => ({
	type: "message",
	message: {
		role,
		content,
		timestamp: 1,
		...(role === "assistant"
			? { provider: "faux", model: "faux-1", api: "faux", stopReason: "stop", usage: { ...usage, cost: costs } }
			: {}),
	},
});

describe("message content of the wrong shape", () => {
	const PROMPT_THREW = "the next prompt threw 'content is not iterable'";
	const PROMPT_FAILED = "every prompt ended in a provider error";
	it.each([
		[
			"a custom_message whose content is 42",
			PROMPT_THREW,
			customMessage(42),
			"the custom_message's content is 42, not text",
			[],
		],
		[
			"a custom_message whose content is null",
			"compact() threw 'content is not iterable'",
			customMessage(null),
			"the custom_message's content is null",
			[],
		],
		[
			"a custom_message whose content is {}",
			PROMPT_THREW,
			customMessage({}),
			"the custom_message's content is an object",
			[],
		],
		[
			"a custom_message whose content list holds a string",
			PROMPT_FAILED,
			customMessage(["hi", { type: "text", text: "kept" }]),
			'the custom_message\'s content holds "hi", not a content block',
			[{ type: "text", text: "kept" }],
		],
		[
			"a custom_message whose content has an unknown block type",
			PROMPT_FAILED,
			customMessage([{ type: "video", url: "u" }]),
			'holds a block of type "video", not text, image, thinking or toolCall',
			[],
		],
		["a user message whose content is 7", PROMPT_THREW, message("user", 7), "the user message's content is 7", []],
		[
			"a user message whose content list holds null",
			"the next prompt threw 'Cannot read properties of null'",
			message("user", [null, { type: "text", text: "kept" }]),
			"the user message's content holds null, not a content block",
			[{ type: "text", text: "kept" }],
		],
		[
			"an assistant message whose content is null",
			"compact() threw 'message.content is not iterable'",
			message("assistant", null),
			"the assistant message's content is null",
			[],
		],
	] as const)(
		"regression: %s — %s; now reported on open, read without what cannot be sent; prompt, usage, compaction and fork list work; the file keeps its bytes",
		async (_label, _before, fields, mention, readAs) => {
			const { file, bytes, line } = await sessionWith(fields);
			const manager = SessionManager.open(file);
			const diagnostic = manager.getDiagnostics().find((d) => d.kind === "invalid_field");
			expect(diagnostic).toMatchObject({ file, line });
			expect(diagnostic!.message).toContain(`Line ${line}: `);
			expect(diagnostic!.message).toContain(mention);
			const read = manager.buildSessionProjection().entries.find((e) => e.sourceEntry.id === BAD_ID)!;
			expect(read.messages.map((m) => (m as { content: unknown }).content)).toEqual([readAs]);

			const session = await openSession(ws, { sessionManager: manager, settingsManager: compactingSettings() });
			try {
				expect(session.getContextUsage()?.tokens).toEqual(expect.any(Number));
				expect(session.getUserMessagesForForking().map((m) => m.text)).toEqual(
					expect.arrayContaining(["first", "second"]),
				);
				ws.reply("three");
				await session.prompt("third");
				expect(lastAssistant(session)).toMatchObject({ text: "three", stopReason: "stop" });
				ws.faux.setResponses([]);
				ws.reply("the summary", "the turn prefix");
				const compaction = await session.compact();
				expect(compaction.summary).toContain("the summary");
				ws.faux.setResponses([]);
				ws.reply("four");
				await session.prompt("fourth");
				expect(lastAssistant(session).text).toBe("four");
			} finally {
				closeSession(session);
			}
			expect(appendedAfter(file, bytes)).toEqual(["user", "assistant", "compaction", "user", "assistant"]);
		},
	);
});

describe("names, labels and summaries of the wrong type", () => {
	it("regression: a session_info whose name is 42 made SessionManager.open throw (entry.name?.trim is not a function) — now it opens with no name, reported", async () => {
		const { file, line } = await sessionWith({ type: "session_info", name: 42 });
		const manager = SessionManager.open(file);
		expect(manager.getDiagnostics().map((d) => d.message)).toEqual([
			`Line ${line}: the session_info's name is 42, not text; read as no name (the line is kept as it is).`,
		]);
		expect(manager.getSessionName()).toBeUndefined();
		expect(renderSessionTree(manager.getTree(), manager.getLeafId()).lines.at(-1)).toContain("[name: (none)]");
		const session = await openSession(ws, { sessionManager: manager });
		ws.reply("answered");
		await session.prompt("still usable?");
		expect(lastAssistant(session).text).toBe("answered");
		closeSession(session);
	});

	it.each([
		["a label whose label is 42", (target: string) => ({ type: "label", targetId: target, label: 42 }), "label"],
		[
			"a branch_summary whose summary is 42",
			() => ({ type: "branch_summary", fromId: "root", summary: 42 }),
			"summary",
		],
	])(
		"regression: %s made the tree view throw (text.trim is not a function) — now it renders, and the value reads as none",
		async (_label, fields, field) => {
			const session = await openSession(ws);
			ws.reply("one");
			await session.prompt("first");
			const file = session.sessionFile!;
			const target = session.sessionManager.getLeafId()!;
			closeSession(session);
			const lines = readFileSync(file, "utf8").trim().split("\n");
			const entry = { id: BAD_ID, parentId: target, timestamp: new Date().toISOString(), ...fields(target) };
			writeFileSync(file, `${lines.join("\n")}\n${JSON.stringify(entry)}\n`);

			const manager = SessionManager.open(file);
			expect(manager.getDiagnostics()).toEqual([
				expect.objectContaining({
					kind: "invalid_field",
					line: lines.length + 1,
					message: expect.stringContaining(`'s ${field} is 42, not text`),
				}),
			]);
			expect(manager.getLabel(target)).toBeUndefined();
			const tree = renderSessionTree(manager.getTree(), manager.getLeafId(), { all: true }).lines;
			expect(tree.join("\n")).toContain("first");
			const roles = manager.buildSessionContext().messages.map((m) => m.role);
			expect(roles.filter((role) => role !== "system")).toEqual(["user", "assistant"]);
			manager.close();
		},
	);

	it("regression: a compaction whose summary is null made token estimation throw (reading 'length') — now the summary reads as empty text", async () => {
		const { file } = await sessionWith({
			type: "compaction",
			summary: null,
			firstKeptEntryId: "nowhere",
			tokensBefore: 10,
		});
		const manager = SessionManager.open(file);
		expect(manager.getDiagnostics().map((d) => d.message)).toEqual([
			expect.stringContaining("the compaction's summary is null, not text; the context reads it as empty"),
		]);
		const messages = manager.buildSessionContext().messages;
		expect(messages).toEqual([expect.objectContaining({ role: "compactionSummary", summary: "" })]);
		expect(Number.isFinite(messages.reduce((sum, m) => sum + estimateTokens(m), 0))).toBe(true);
		manager.close();
	});

	it("regression: a message entry without a message object made createAgentSession throw (reading 'role') — now skipped like a malformed line", async () => {
		const { file, bytes, line } = await sessionWith({ type: "message" });
		const manager = SessionManager.open(file);
		expect(manager.getDiagnostics()).toEqual([
			expect.objectContaining({
				kind: "malformed_line",
				line,
				message: `Line ${line} skipped: a message entry without a message object.`,
			}),
		]);
		const session = await openSession(ws, { sessionManager: manager });
		ws.reply("three");
		await session.prompt("third");
		expect(lastAssistant(session).text).toBe("three");
		closeSession(session);
		expect(appendedAfter(file, bytes)).toEqual(["user", "assistant"]);
	});
});

describe("entries pi tolerates and builds a sensible context from", () => {
	it.each([
		["a toolResult without toolCallId", message("toolResult", [{ type: "text", text: "r" }])],
		// pi writes this itself: a tool_call handler's `{ block: true, reason: 42 }` becomes the tool result's text.
		["a user message whose text part has text 42", message("user", [{ type: "text", text: 42 }])],
		["a label of an entry that is not there", { type: "label", targetId: "nowhere", label: "l" }],
		["a model_change without modelId", { type: "model_change", provider: "faux" }],
		["a thinking_level_change to an unknown level", { type: "thinking_level_change", thinkingLevel: "ultra" }],
		[
			"a compaction whose firstKeptEntryId is not there",
			{ type: "compaction", summary: "s", firstKeptEntryId: "nowhere", tokensBefore: 9 },
		],
		[
			"an assistant message without usage",
			{
				type: "message",
				message: {
					role: "assistant",
					content: [{ type: "text", text: "a" }],
					provider: "faux",
					model: "faux-1",
					api: "faux",
					stopReason: "stop",
					timestamp: 1,
				},
			},
		],
	])("%s loads as pi loads it, with no diagnostic, and the session answers", async (_label, fields) => {
		const { file } = await sessionWith(fields);
		const manager = SessionManager.open(file);
		expect(manager.getDiagnostics()).toEqual([]);
		renderSessionTree(manager.getTree(), manager.getLeafId());
		const session = await openSession(ws, { sessionManager: manager });
		ws.reply("answered");
		await session.prompt("next");
		expect(lastAssistant(session).text).toBe("answered");
		closeSession(session);
	});
});

describe("the CLI on a session with a custom_message whose content is 42", () => {
	const cli = useCliProject("settle-stored-shapes-");

	it("regression: settle --session failed (content is not iterable) — now a warning naming the line, the answer, exit 0; --export warns the same", () => {
		const sessions = join(cli.dir, "sessions");
		expect(cli.settle(["--faux", "--session-dir", sessions, "-p", "first"]).code).toBe(0);
		const file = join(sessions, readdirSync(sessions).find((name) => name.endsWith(".jsonl"))!);
		const lines = readFileSync(file, "utf8").trim().split("\n");
		const parentId = JSON.parse(lines.at(-1)!).id;
		const entry = { id: BAD_ID, parentId, timestamp: new Date().toISOString(), ...customMessage(42) };
		writeFileSync(file, `${lines.join("\n")}\n${JSON.stringify(entry)}\n`);
		const warning = `Line ${lines.length + 1}: the custom_message's content is 42, not text or a list of content blocks; the context reads it as empty (the line is kept as it is).`;

		const run = cli.settle(["--faux", "--session", file, "-p", "second"]);
		expect(run.stderr).toContain(`Warning: ${file}: ${warning}`);
		expect(run.code).toBe(0);
		expect(run.stdout).not.toBe("");

		const exported = cli.settle(["--export", file, "page.html"]);
		expect(exported.code).toBe(0);
		expect(exported.stderr).toBe(`Warning: ${warning}\n`);
		expect(readFileSync(join(cli.project, "page.html"), "utf8")).toContain("second");
		expect(basename(file)).toMatch(/\.jsonl$/);
	});
});
