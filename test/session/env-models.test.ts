/**
 * Images against the model (C.1 step 11) and the `images.blockImages` setting; model cycling
 * with scoped models (C.12); session stats, context usage, the last answer's text and the branch
 * export — through live sessions over real project folders.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage, AssistantMessage, ImageContent, UserMessage } from "../../src/llm/types.js";
import { normalizePromptImages } from "../../src/session/images.js";
import { nextCycleModel } from "../../src/session/model-cycling.js";
import {
	awaitsResponseSinceCompaction,
	contextUsage,
	exportBranchToJsonl,
	lastAssistantText,
} from "../../src/session/session-stats.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { type LiveProject, openProject } from "./env-helpers.js";

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
});

const PNG: ImageContent = { type: "image", data: "iVBORw0KGgoAAAANSUhEUg==", mimeType: "image/png" };
const BMP: ImageContent = { type: "image", data: "Qk0=", mimeType: "image/bmp" };

function lastUser(messages: readonly AgentMessage[]): UserMessage {
	return messages.filter((message): message is UserMessage => message.role === "user").at(-1)!;
}

describe("prompt images against the model", () => {
	it("a model without image input gets none: each image is dropped with a hint appended to the text", async () => {
		p = await openProject({ faux: { models: [{ id: "text-only", input: ["text"] }] } });
		p.faux.setResponses([fauxAssistantMessage("I cannot see images.")]);
		await p.session.prompt("What is in these?", { images: [PNG, PNG] });
		const hint = (n: number) => `[Image ${n} omitted: the model faux/text-only does not accept images.]`;
		const expected = [{ type: "text", text: `What is in these?\n\n${hint(1)}\n${hint(2)}` }];
		expect(p.faux.requests[0]!.messages[0]).toMatchObject({ role: "user", content: expected });
		expect(lastUser(p.session.messages).content).toEqual(expected);
	});

	it("checks against the model a before_agent_start handler switched to", async () => {
		const switcher = (pi: ExtensionAPI) =>
			pi.on("before_agent_start", async (_event, ctx) => {
				const textOnly = ctx.modelRegistry.find("faux", "text-only");
				if (textOnly) await pi.setModel(textOnly);
			});
		p = await openProject({
			faux: { models: [{ id: "vision" }, { id: "text-only", input: ["text"] }] },
			extensionFactories: [switcher],
		});
		expect(p.session.model?.id).toBe("vision");
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("look", { images: [PNG] });
		expect(p.faux.requests[0]!.model.id).toBe("text-only");
		expect(p.faux.requests[0]!.messages[0]).toMatchObject({
			content: [{ type: "text", text: "look\n\n[Image 1 omitted: the model faux/text-only does not accept images.]" }],
		});
	});

	it("keeps supported images and drops an unsupported type with its own hint", async () => {
		p = await openProject();
		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("compare", { images: [BMP, PNG] });
		expect(p.faux.requests[0]!.messages[0]).toMatchObject({
			content: [
				{
					type: "text",
					text: "compare\n\n[Image 1 omitted: image/bmp is not a supported image type (image/png, image/jpeg, image/gif, image/webp).]",
				},
				PNG,
			],
		});
	});

	it("normalizePromptImages: no model, no images, empty data and the inline limit", () => {
		expect(normalizePromptImages("t", [PNG], undefined)).toEqual({ text: "t", images: [PNG], hints: [] });
		expect(normalizePromptImages("t", [], { provider: "a", id: "b", input: ["text"] })).toEqual({
			text: "t",
			images: undefined,
			hints: [],
		});
		const model = { provider: "a", id: "b", input: ["text", "image"] as ("text" | "image")[] };
		const empty = normalizePromptImages("t", [{ ...PNG, data: "" }], model);
		expect(empty.hints).toEqual(["[Image 1 omitted: it has no image data.]"]);
		const huge = normalizePromptImages("t", [{ ...PNG, data: "A".repeat(5 * 1024 * 1024) }], model);
		expect(huge.images).toBeUndefined();
		expect(huge.hints[0]).toMatch(/^\[Image 1 omitted: 5\.0MB encoded is over the 4\.5MB inline image limit/);
	});

	it("images.blockImages applies to the next request (set live, no reload); the transcript keeps the image", async () => {
		p = await openProject();
		p.faux.setResponses([
			fauxAssistantMessage("seen"),
			fauxAssistantMessage("blocked"),
			fauxAssistantMessage("seen again"),
		]);
		await p.session.prompt("first", { images: [PNG] });
		expect(p.faux.requests[0]!.messages[0]).toMatchObject({ content: [{ type: "text", text: "first" }, PNG] });
		p.settings.setBlockImages(true);
		await p.session.prompt("second");
		expect(p.faux.requests[1]!.messages[0]).toMatchObject({
			content: [
				{ type: "text", text: "first" },
				{ type: "text", text: "Image reading is disabled." },
			],
		});
		p.settings.setBlockImages(false);
		await p.session.prompt("third");
		expect(p.faux.requests[2]!.messages[0]).toMatchObject({ content: [{ type: "text", text: "first" }, PNG] });
		expect(p.session.messages.find((message) => message.role === "user")).toMatchObject({ content: [{}, PNG] });
	});
});

describe("cycleModel and scoped models (C.12)", () => {
	it("cycles the available models with wrap-around, records model_change, and returns undefined with one candidate", async () => {
		p = await openProject({ faux: { models: [{ id: "a" }, { id: "b" }, { id: "c", reasoning: true }] } });
		expect((await p.session.cycleModel())?.model.id).toBe("b");
		expect((await p.session.cycleModel())?.model.id).toBe("c");
		expect((await p.session.cycleModel())?.model.id).toBe("a");
		expect((await p.session.cycleModel("backward"))?.model.id).toBe("c");
		const changes = p.sessionManager.getEntries().filter((entry) => entry.type === "model_change");
		expect(changes.map((entry) => (entry.type === "model_change" ? entry.modelId : ""))).toEqual([
			"a",
			"b",
			"c",
			"a",
			"c",
		]);
		expect(p.settings.getDefaultModel()).toBe("c");
		p.cleanup();

		p = await openProject();
		expect(await p.session.cycleModel()).toBeUndefined();
	});

	it("with scoped models cycles only those with auth, applying each one's thinking level; extensions see them", async () => {
		let seenScoped: string[] = [];
		const other = createFauxProvider({ provider: "locked", api: "locked-api", models: [{ id: "x" }] });
		p = await openProject({
			faux: { models: [{ id: "a", reasoning: true }, { id: "b" }, { id: "c", reasoning: true }] },
			extensionFactories: [
				(pi: ExtensionAPI) =>
					pi.on("model_select", (_event, ctx) => {
						seenScoped = ctx.scopedModels.map((scoped) => scoped.model.id);
					}),
			],
		});
		p.modelRuntime.registerFauxProvider(other, { apiKey: null });
		p.session.setScopedModels([
			{ model: p.faux.getModel("a")!, thinkingLevel: "high" },
			{ model: other.getModel("x")! },
			{ model: p.faux.getModel("c")!, thinkingLevel: "low" },
		]);
		const first = await p.session.cycleModel();
		expect(first).toMatchObject({ model: { id: "c" }, thinkingLevel: "low", isScoped: true });
		const second = await p.session.cycleModel();
		expect(second).toMatchObject({ model: { id: "a" }, thinkingLevel: "high", isScoped: true });
		expect(seenScoped).toEqual(["a", "x", "c"]);
		expect(p.session.scopedModels.map((scoped) => scoped.model.id)).toEqual(["a", "x", "c"]);
		p.session.setScopedModels([]);
		expect((await p.session.cycleModel())?.isScoped).toBe(false);
	});

	it("nextCycleModel: a current model that is not a candidate counts as the first", () => {
		const faux = createFauxProvider({ models: [{ id: "a" }, { id: "b" }, { id: "c" }] });
		const [a, b, c] = faux.models;
		const outsider = createFauxProvider({ provider: "o" }).getModel()!;
		const pick = (current: typeof a | undefined, direction: "forward" | "backward") =>
			nextCycleModel({ scoped: [], available: [a!, b!, c!], current, direction, hasAuth: () => true })?.model.id;
		expect(pick(outsider, "forward")).toBe("b");
		expect(pick(outsider, "backward")).toBe("c");
		expect(pick(undefined, "forward")).toBe("b");
	});
});

describe("stats, context usage, last answer, export", () => {
	it("getSessionStats counts the context's messages, tool calls and tokens; getLastAssistantText; getContextUsage", async () => {
		p = await openProject({ files: { "notes.txt": "hello" } });
		p.faux.setResponses([
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" }), fauxToolCall("ls", {})], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("  The notes say hello.  "),
		]);
		await p.session.prompt("read the notes");
		const stats = p.session.getSessionStats();
		expect(stats).toMatchObject({
			sessionId: p.session.sessionId,
			sessionFile: p.session.sessionFile,
			userMessages: 1,
			assistantMessages: 2,
			toolCalls: 2,
			toolResults: 2,
			totalMessages: 6,
			cost: 0,
		});
		const assistants = p.session.messages.filter(
			(message): message is AssistantMessage => message.role === "assistant",
		);
		const sum = (key: "input" | "output" | "cacheRead" | "cacheWrite") =>
			assistants.reduce((total, message) => total + message.usage[key], 0);
		expect(stats.tokens).toEqual({
			input: sum("input"),
			output: sum("output"),
			cacheRead: sum("cacheRead"),
			cacheWrite: sum("cacheWrite"),
			total: sum("input") + sum("output") + sum("cacheRead") + sum("cacheWrite"),
		});
		expect(stats.tokens.total).toBeGreaterThan(0);
		expect(p.session.getLastAssistantText()).toBe("The notes say hello.");
		const usage = p.session.getContextUsage()!;
		expect(usage.contextWindow).toBe(128000);
		expect(usage.tokens).toBeGreaterThan(0);
		expect(usage.percent).toBeCloseTo(((usage.tokens ?? 0) / 128000) * 100);
		expect(stats.contextUsage).toEqual(usage);
	});

	it("getContextUsage is unknown right after a compaction, until the next response", async () => {
		p = await openProject({
			files: { ".settle/settings.json": JSON.stringify({ compaction: { keepRecentTokens: 1 } }) },
		});
		p.faux.setResponses([
			fauxAssistantMessage("first answer with some words in it"),
			fauxAssistantMessage("second answer with some more words"),
		]);
		await p.session.prompt("one");
		await p.session.prompt("two");
		expect(p.session.getContextUsage()?.tokens).toBeGreaterThan(0);
		// The summary (and, when the cut splits a turn, the turn-prefix summary).
		p.faux.setResponses([fauxAssistantMessage("## Goal\nsummary"), fauxAssistantMessage("## Prefix\nsummary")]);
		await p.session.compact();
		expect(p.session.getContextUsage()).toEqual({ tokens: null, contextWindow: 128000, percent: null });
		p.faux.setResponses([fauxAssistantMessage("after compaction")]);
		await p.session.prompt("three");
		expect(p.session.getContextUsage()?.tokens).toBeGreaterThan(0);
	});

	it("contextUsage and lastAssistantText on hand-made transcripts", () => {
		const assistant = (text: string, timestamp: number, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
			...fauxAssistantMessage(text),
			usage: {
				input: 100,
				output: 10,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 110,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			timestamp,
			...extra,
		});
		const kept = assistant("kept", 10);
		expect(contextUsage([kept], { contextWindow: 1000 }, true)).toEqual({
			tokens: null,
			contextWindow: 1000,
			percent: null,
		});
		expect(contextUsage([kept, assistant("new", 30)], { contextWindow: 1000 }, false)).toEqual({
			tokens: 110,
			contextWindow: 1000,
			percent: 11,
		});
		expect(contextUsage([kept], { contextWindow: 0 }, false)).toBeUndefined();
		expect(contextUsage([kept], undefined, false)).toBeUndefined();
		const entries = [
			{ type: "compaction", id: "c", parentId: null },
			{ type: "message", id: "k", parentId: "c", message: kept },
		];
		const manager = (leaf: number) => ({
			getLeafEntry: () => entries[leaf] as never,
			getEntry: (id: string) => entries.find((entry) => entry.id === id) as never,
		});
		expect(awaitsResponseSinceCompaction(manager(0))).toBe(true);
		expect(awaitsResponseSinceCompaction(manager(1))).toBe(false);
		const aborted = assistant("", 40, { stopReason: "aborted", content: [] });
		expect(lastAssistantText([kept, aborted])).toBe("kept");
		expect(lastAssistantText([assistant("   ", 1)])).toBeUndefined();
		expect(lastAssistantText([])).toBeUndefined();
	});

	it("exportToJsonl writes the current branch as a linear session file that opens again", async () => {
		p = await openProject();
		p.faux.setResponses([fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
		await p.session.prompt("first");
		await p.session.prompt("second");
		const out = p.session.exportToJsonl(join(p.cwd, "exports/branch.jsonl"));
		expect(out).toBe(join(p.cwd, "exports/branch.jsonl"));
		const reopened = SessionManager.open(out, undefined, undefined, { readOnly: true });
		try {
			expect(reopened.getSessionId()).toBe(p.session.sessionId);
			expect(reopened.buildSessionContext().messages).toEqual(p.sessionManager.buildSessionContext().messages);
		} finally {
			reopened.close();
		}
	});

	it("exportBranchToJsonl leaves other branches out and re-chains the entries", () => {
		const manager = SessionManager.inMemory("/work/project");
		const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: Date.now() });
		const root = manager.appendMessage(user("root"));
		manager.appendMessage(user("abandoned"));
		manager.branch(root);
		const kept = manager.appendMessage(user("kept"));
		const dir = join(tmpdir(), `settle-export-${process.pid}-${Date.now()}`);
		const file = exportBranchToJsonl(manager, join(dir, "out.jsonl"));
		try {
			const lines = readFileSync(file, "utf8")
				.trim()
				.split("\n")
				.map((line: string) => JSON.parse(line));
			expect(lines[0]).toMatchObject({ type: "session", cwd: "/work/project", id: manager.getSessionId() });
			expect(
				lines.slice(1).map((entry: { id: string; parentId: string | null }) => [entry.id, entry.parentId]),
			).toEqual([
				[root, null],
				[kept, root],
			]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
