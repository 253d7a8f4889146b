/**
 * Compatibility with pi 0.73.1 in both directions:
 * - pi's own v1 sessions (from pi's test fixtures) and sessions generated with pi 0.73.1
 *   (test/fixtures/store/generate-pi-sessions.mjs) open in Settle and build exactly the context pi
 *   built (sha256 of JSON.stringify(messages), roles, model, thinking level);
 * - files Settle writes open in pi's SessionManager, which builds the same context as Settle.
 */
import { createHash } from "node:crypto";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/llm/types.js";
import type { SessionTreeNode } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { assistant, tempDir, toolResult, track, usage, user } from "./helpers.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/store/", import.meta.url));

interface PiContextRecord {
	entryCount: number;
	entryTypes: string[];
	leafIsLastEntry: boolean;
	leafId?: string | null;
	sessionName?: string;
	labels?: Record<string, string>;
	header: Record<string, unknown>;
	context: {
		messageCount: number;
		roles: string[];
		thinkingLevel: string;
		model: { provider: string; modelId: string } | null;
		messagesSha256: string;
	};
}

const sha256 = (messages: unknown) => createHash("sha256").update(JSON.stringify(messages)).digest("hex");

function fixture(name: string) {
	const record = JSON.parse(readFileSync(join(FIXTURES, `${name}.pi-context.json`), "utf8")) as PiContextRecord;
	const messages = JSON.parse(readFileSync(join(FIXTURES, `${name}.pi-messages.json`), "utf8")) as AgentMessage[];
	const dir = tempDir("settle-compat-");
	const file = join(dir, `${name}.jsonl`);
	copyFileSync(join(FIXTURES, `${name}.jsonl`), file);
	return { record, messages, dir, file };
}

function expectSameAsPi(sm: SessionManager, record: PiContextRecord, messages: AgentMessage[]) {
	const entries = sm.getEntries();
	expect(entries.map((e) => e.type)).toEqual(record.entryTypes);
	expect(sm.getLeafId() === entries[entries.length - 1]?.id).toBe(record.leafIsLastEntry);
	const context = sm.buildSessionContext();
	expect(context.messages.map((m) => m.role)).toEqual(record.context.roles);
	expect(context.thinkingLevel).toBe(record.context.thinkingLevel);
	expect(context.model).toEqual(record.context.model);
	expect(context.messages).toEqual(messages);
	expect(sha256(context.messages)).toBe(record.context.messagesSha256);
}

/** Tree shape as comparable data: ids, labels, children. */
function shape(nodes: SessionTreeNode[]): unknown[] {
	return nodes.map((n) => ({ id: n.entry.id, label: n.label, children: shape(n.children) }));
}

describe("pi's v1 sessions (pi's own test fixtures)", () => {
	for (const name of ["before-compaction", "large-session"]) {
		it(`${name}: migrates to v3 and builds the context pi 0.73.1 built`, () => {
			const { record, messages, file } = fixture(name);
			const sm = SessionManager.open(file);
			expect(sm.getDiagnostics().map((d) => d.kind)).toEqual(["migrated"]);
			expect(sm.getHeader()).toEqual(record.header);
			expect(sm.getEntries()).toHaveLength(record.entryCount);
			expectSameAsPi(sm, record, messages);
			const entries = sm.getEntries();
			sm.close();
			// Rewritten once: a second open changes nothing, and pi reads Settle's migrated file the same way.
			const text = readFileSync(file, "utf8");
			const again = track(SessionManager.open(file));
			expect(again.getDiagnostics()).toEqual([]);
			expect(again.getEntries()).toEqual(entries);
			expect(readFileSync(file, "utf8")).toBe(text);
			const pi = PiSessionManager.open(file);
			expect(sha256(pi.buildSessionContext().messages)).toBe(record.context.messagesSha256);
			expect(pi.getEntries()).toEqual(entries);
		});
	}
});

describe("sessions generated with pi 0.73.1 (tool calls, compaction, branches, labels, names, model/thinking changes)", () => {
	for (const name of ["pi-full", "pi-branches"]) {
		it(`${name}: opens cleanly and matches pi's context, leaf, labels and name`, () => {
			const { record, messages, file } = fixture(name);
			const text = readFileSync(file, "utf8");
			const sm = track(SessionManager.open(file));
			expect(sm.getDiagnostics()).toEqual([]);
			expect(readFileSync(file, "utf8")).toBe(text);
			expect(sm.getHeader()).toEqual(record.header);
			expectSameAsPi(sm, record, messages);
			expect(sm.getLeafId()).toBe(record.leafId);
			expect(sm.getSessionName()).toBe(record.sessionName);
			const labels = Object.fromEntries(
				sm
					.getEntries()
					.map((e) => [e.id, sm.getLabel(e.id)] as const)
					.filter(([, label]) => label !== undefined),
			);
			expect(labels).toEqual(record.labels);
		});

		it(`${name}: what Settle appends to pi's file, pi reads back with the same context`, () => {
			const { file } = fixture(name);
			const sm = SessionManager.open(file);
			const u = sm.appendMessage(user("added by Settle"));
			sm.appendMessage(assistant("Settle's answer", { model: "faux-1" }));
			sm.appendLabelChange(u, "settle label");
			sm.close();
			const pi = PiSessionManager.open(file);
			expect(pi.getEntries()).toEqual(sm.getEntries());
			expect(pi.getLabel(u)).toBe("settle label");
			expect(JSON.stringify(pi.buildSessionContext())).toBe(JSON.stringify(sm.buildSessionContext()));
		});
	}
});

describe("pi 0.73.1 opens what Settle writes", () => {
	it("every entry type pi knows, with branches: same entries, leaf, tree, labels, name, and context at every entry", () => {
		const dir = tempDir("settle-to-pi-");
		const sm = SessionManager.create("/project", dir);
		sm.appendModelChange("anthropic", "claude-sonnet");
		sm.appendThinkingLevelChange("medium");
		sm.appendSessionInfo("Written by Settle");
		const u1 = sm.appendMessage(user("read a.txt"));
		const a1 = sm.appendMessage(
			assistant("reading", { toolCall: "c1", provider: "anthropic", model: "claude-sonnet" }),
		);
		sm.appendMessage(toolResult("c1", "contents of a"));
		sm.appendMessage(assistant("a.txt says hi", { provider: "anthropic", model: "claude-sonnet" }));
		sm.appendMessage({
			role: "bashExecution",
			command: "ls",
			output: "a.txt",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 7,
		});
		sm.appendMessage({ role: "custom", customType: "legacy", content: "custom role", display: true, timestamp: 8 });
		sm.appendCustomEntry("ext-state", { n: 1 });
		sm.appendCustomMessageEntry("ext", [{ type: "text", text: "injected" }], false, { d: 2 });
		sm.appendLabelChange(u1, "start");
		sm.appendCompaction("We read a.txt.", a1, 4321, { readFiles: ["a.txt"], modifiedFiles: [] }, false);
		sm.appendThinkingLevelChange("high");
		const u2 = sm.appendMessage(user("and then?"));
		sm.appendMessage(assistant("then this", { provider: "openai", model: "gpt" }));
		sm.branchWithSummary(u2, "An abandoned direction.", { readFiles: [], modifiedFiles: ["b.txt"] });
		sm.appendMessage(assistant("new direction", { provider: "openai", model: "gpt" }));
		sm.appendLabelChange(a1, "tool call");
		sm.appendLabelChange(u1, undefined);
		sm.appendSessionInfo("Renamed by Settle");
		const file = sm.getSessionFile()!;
		sm.close();

		const pi = PiSessionManager.open(file);
		expect(pi.getHeader()).toEqual(sm.getHeader());
		expect(pi.getEntries()).toEqual(sm.getEntries());
		expect(pi.getLeafId()).toBe(sm.getLeafId());
		expect(pi.getSessionName()).toBe("Renamed by Settle");
		expect(shape(pi.getTree() as SessionTreeNode[])).toEqual(shape(sm.getTree()));
		for (const entry of sm.getEntries()) {
			expect(pi.getLabel(entry.id)).toBe(sm.getLabel(entry.id));
			pi.branch(entry.id);
			sm.branch(entry.id);
			expect(JSON.stringify(pi.buildSessionContext())).toBe(JSON.stringify(sm.buildSessionContext()));
		}
		expect(sm.buildSessionContext().messages.map((m) => m.role)).toContain("compactionSummary");
	});

	it("pi loads Settle's newer entry types (context_edit, usage) and ignores them in its context", () => {
		const dir = tempDir("settle-to-pi-");
		const sm = SessionManager.create("/project", dir);
		const u = sm.appendMessage(user("q"));
		const a = sm.appendMessage(assistant("failed", { stopReason: "error" }));
		sm.appendUsage("retry", "faux", "faux-1", usage, "note");
		sm.appendContextEdit(a, null);
		sm.appendMessage(assistant("ok"));
		sm.close();
		const pi = PiSessionManager.open(sm.getSessionFile()!);
		expect(pi.getEntries()).toEqual(sm.getEntries());
		// pi 0.73.1 predates context edits: it still shows the omitted attempt; Settle does not.
		expect(pi.buildSessionContext().messages).toHaveLength(3);
		expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
		expect(sm.getEntry(u)).toBeDefined();
	});
});
