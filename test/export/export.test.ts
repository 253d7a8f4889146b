/**
 * `exportSessionToHtml` and `AgentSession.exportToHtml` on real files: what the page embeds (the
 * whole tree, the leaf, totals), pi's error texts as typed errors, the atomic write, pi's v1
 * fixture sessions (migrated in memory, the file left as it was), and that no session text can close
 * the data script (property).
 */
import {
	copyFileSync,
	existsSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { exportSessionToHtml, exportStats, renderSessionHtml } from "../../src/export/index.js";
import { sessionHtmlPieces } from "../../src/export/render.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { SessionEntry } from "../../src/store/entries.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { embeddedData, HOSTILE_SCRIPT, type RichSession, richSession } from "./helpers.js";

/** pi's v1 sessions, in the repository (test/fixtures/store/README.md): a clean clone has them. */
const FIXTURES = fileURLToPath(new URL("../fixtures/store/", import.meta.url));
let dir: string;
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-export-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("exportSessionToHtml on a session built through the public API", () => {
	let rich: RichSession;
	beforeAll(async () => {
		rich = await richSession();
	});
	afterAll(() => rich?.h.cleanup());

	it("embeds every entry of every branch, the current leaf and the session's totals", async () => {
		const out = join(dir, "rich.html");
		expect(await exportSessionToHtml(rich.file, { outputPath: out })).toBe(out);
		const data = embeddedData(out);
		const sm = rich.h.sessionManager;
		expect(data.entries).toEqual(sm.getEntries());
		expect(data.leafId).toBe(sm.getLeafId());
		const types = new Set(data.entries.map((entry) => entry.type));
		for (const type of ["message", "compaction", "branch_summary", "model_change", "thinking_level_change", "label"]) {
			expect(types, type).toContain(type);
		}
		// Both branches are there: the abandoned one is not on the leaf's path.
		expect(sm.getBranch().map((entry) => entry.id)).not.toContain(rich.abandonedUser.id);
		expect(data.entries.map((entry) => entry.id)).toContain(rich.abandonedUser.id);
		expect(data.stats.models).toEqual(["faux/faux-1", "faux/faux-2"]);
		expect(data.stats.branches).toBe(2);
		const assistants = data.entries.flatMap((entry) =>
			entry.type === "message" && entry.message.role === "assistant" ? [entry.message] : [],
		);
		const compactions = data.entries.flatMap((entry) =>
			(entry.type === "compaction" || entry.type === "branch_summary") && entry.usage ? [entry.usage] : [],
		);
		const output = [...assistants.map((m) => m.usage), ...compactions].reduce((sum, usage) => sum + usage.output, 0);
		expect(output).toBeGreaterThan(0);
		expect(data.stats.output).toBe(output);
		expect(data.title).toBe(`Session ${sm.getSessionId()}`);
		// The page is self-contained: no external script, style, image or frame.
		const html = readFileSync(out, "utf8");
		expect(html).not.toMatch(/<(script|img|link|iframe)[^>]+(src|href)=/i);
		expect(html).toContain("default-src 'none'");
		// The hostile text is in the data only escaped: it cannot close the data script.
		expect(html).not.toContain(HOSTILE_SCRIPT);
		expect(html.match(/<\/script>/g)).toHaveLength(2);
	});

	it("AgentSession.exportToHtml writes the same page with the session name as title; options.title wins", async () => {
		// Its own session: naming the shared rich one changed the title the test above expects whenever
		// this test ran first (`--sequence.shuffle` shuffles the tests of a file).
		const named = await createHarness({ persistence: "disk" });
		try {
			named.setResponses([fauxAssistantMessage("hi")]);
			await named.session.prompt("hello");
			named.session.setSessionName("Export <review>");
			const out = join(dir, "nested", "folder", "sdk.html");
			expect(await named.session.exportToHtml(out)).toBe(out);
			const data = embeddedData(out);
			expect(data.entries).toEqual(named.sessionManager.getEntries());
			expect(data.title).toBe("Export <review>");
			expect(readFileSync(out, "utf8")).toContain("<title>Export &lt;review&gt;</title>");
			const titled = join(dir, "titled.html");
			await exportSessionToHtml(named.sessionManager, { outputPath: titled, title: "Mine" });
			expect(embeddedData(titled).title).toBe("Mine");
		} finally {
			await named.cleanup();
		}
	});

	it("writes via a temp file: a failed write leaves the previous page and no temp file", async () => {
		const out = join(dir, "atomic", "page.html");
		await exportSessionToHtml(rich.file, { outputPath: out });
		const before = readFileSync(out, "utf8");
		// A folder where the page should go: the rename fails, nothing is half-written.
		const blocked = join(dir, "atomic", "blocked.html");
		await exportSessionToHtml(rich.file, { outputPath: blocked });
		rmSync(blocked);
		const { mkdirSync } = await import("node:fs");
		mkdirSync(join(blocked, "inside"), { recursive: true });
		const error = await exportSessionToHtml(rich.file, { outputPath: blocked }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "IO", message: expect.stringContaining("Choose a writable path") });
		expect(readFileSync(out, "utf8")).toBe(before);
		expect(readdirSync(join(dir, "atomic")).sort()).toEqual(["blocked.html", "page.html"]);
	});

	it("regression: a failed write named Node's temp file ('open …/page.html.<pid>.<time>.tmp'); now the path given", async () => {
		// /proc takes no new files, whoever runs the test (root too): the temp file cannot be opened.
		const target = "/proc/settle-export-test-page.html";
		const error = await exportSessionToHtml(rich.file, { outputPath: target }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SettleError);
		const message = (error as SettleError).message;
		expect(message).toMatch(/^Cannot write the HTML export to \/proc\/settle-export-test-page\.html: /);
		expect(message).toContain(`'${target}'`);
		expect(message).not.toContain(".tmp");
	});
});

describe("errors, as pi words them, typed", () => {
	let h: Harness | undefined;
	afterEach(() => h?.cleanup());

	it("a missing file: NOT_FOUND 'File not found: <path>'", async () => {
		const missing = join(dir, "missing.jsonl");
		const error = await exportSessionToHtml(missing).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SettleError);
		expect(error).toMatchObject({ code: "NOT_FOUND", message: `File not found: ${missing}` });
	});

	it("an in-memory session is exported from memory (pi refuses it); with no message yet there is nothing to export", async () => {
		h = await createHarness();
		const empty = await h.session.exportToHtml(join(dir, "never.html")).catch((e: unknown) => e);
		expect(empty).toMatchObject({
			code: "INVALID_ARGUMENT",
			message: "Nothing to export yet - start a conversation first",
		});
		expect(existsSync(join(dir, "never.html"))).toBe(false);
		h.setResponses([fauxAssistantMessage("hi")]);
		await h.session.prompt("hello");
		expect(await h.session.exportToHtml(join(dir, "memory.html"))).toBe(join(dir, "memory.html"));
		expect(readFileSync(join(dir, "memory.html"), "utf8")).toMatch(/^<!DOCTYPE html>/i);
	});

	it("a session whose file is not written yet: 'Nothing to export yet - start a conversation first'", async () => {
		h = await createHarness({ persistence: "disk" });
		const error = await h.session.exportToHtml(join(dir, "never.html")).catch((e: unknown) => e);
		expect(error).toMatchObject({
			code: "INVALID_ARGUMENT",
			message: "Nothing to export yet - start a conversation first",
		});
	});
});

describe("pi's v1 fixture sessions", () => {
	it.each(["before-compaction", "large-session"])(
		"%s.jsonl opens (migrated in memory) and exports; the file is untouched",
		async (name) => {
			const file = join(dir, `${name}.jsonl`);
			copyFileSync(join(FIXTURES, `${name}.jsonl`), file);
			const original = readFileSync(file);
			const out = join(dir, `${name}.html`);
			await exportSessionToHtml(file, { outputPath: out });
			// Buffer.equals: toEqual walks a 2 MB Buffer byte by byte (10 s on a loaded machine).
			expect(readFileSync(file).equals(original), "the session file is unchanged").toBe(true);
			const data = embeddedData(out);
			const context = JSON.parse(readFileSync(join(FIXTURES, `${name}.pi-context.json`), "utf8")) as {
				entryCount?: number;
				entries?: number;
			};
			// Migration makes random ids: compare with each id replaced by its entry's position.
			const withoutIds = (entries: SessionEntry[]) => {
				const position = new Map(entries.map((entry, i) => [entry.id, `#${i}`]));
				return JSON.parse(JSON.stringify(entries, (_key, value) => position.get(value) ?? value));
			};
			const expected = SessionManager.open(file, undefined, undefined, { readOnly: true }).getEntries();
			expect(withoutIds(data.entries)).toEqual(withoutIds(expected));
			expect(data.entries.length).toBe(context.entryCount ?? context.entries ?? data.entries.length);
			// Migration gave every entry an id and a parent chain: the leaf's path reaches the root.
			expect(data.entries.every((entry) => typeof entry.id === "string")).toBe(true);
			expect(data.leafId).toBe(data.entries.at(-1)?.id);
			expect(statSync(out).size).toBeGreaterThan(original.length / 2);
		},
	);
});

describe("the embedded data", () => {
	const entry = (text: string, id: string, parentId: string | null): SessionEntry => ({
		type: "message",
		id,
		parentId,
		timestamp: "2026-01-01T00:00:00.000Z",
		message: { role: "user", content: text, timestamp: 0 },
	});

	it("property: any text round-trips exactly and never closes the data script or opens a comment", () => {
		fc.assert(
			fc.property(fc.array(fc.string({ unit: "grapheme" }), { maxLength: 4 }), fc.string(), (texts, title) => {
				const entries = [...texts, "</script><!--<script>", "\u2028</SCRIPT >"].map((text, i) =>
					entry(text, `e${i}`, i === 0 ? null : `e${i - 1}`),
				);
				const html = renderSessionHtml({ header: null, entries, leafId: entries.at(-1)!.id, title });
				const start = html.indexOf('id="session-data">') + 'id="session-data">'.length;
				const json = html.slice(start, html.indexOf("</script>", start));
				expect(json).not.toMatch(/</);
				const data = JSON.parse(json) as { entries: SessionEntry[]; title: string };
				expect(data.entries).toEqual(entries);
				expect(data.title).toBe(title);
			}),
			{ numRuns: 200 },
		);
	});

	it("a big session's page is written in pieces of about 64K characters, never as one string of the whole session; joined, they are the page with the data of the session", () => {
		const entries = Array.from({ length: 2000 }, (_, i) =>
			entry(`${i} ${"y".repeat(1000)}`, `e${i}`, i === 0 ? null : `e${i - 1}`),
		);
		for (const name of [undefined, "named <session>"]) {
			const page = { header: null, entries, leafId: "e1999", name };
			const pieces = [...sessionHtmlPieces(page)];
			expect(pieces.length).toBeGreaterThan(20);
			// A piece holds up to 64K characters of entries, plus the page's own script and stylesheet at the ends.
			for (const piece of pieces) expect(piece.length).toBeLessThan(150_000);
			const html = pieces.join("");
			expect(html).toBe(renderSessionHtml(page));
			const start = html.indexOf('id="session-data">') + 'id="session-data">'.length;
			expect(JSON.parse(html.slice(start, html.indexOf("</script>", start)))).toEqual({
				title: name ?? "Session",
				header: null,
				...(name === undefined ? {} : { name }),
				leafId: "e1999",
				entries,
				stats: exportStats(entries),
			});
		}
	});

	it("totals count every branch, tool results' nested usage, summaries and usage entries; bad numbers count 0", () => {
		const usage = (output: number, cost: number) => ({
			input: 1,
			output,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: output + 1,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
		});
		const base = { timestamp: "2026-01-01T00:00:00.000Z" };
		const entries = [
			{
				...base,
				type: "message",
				id: "a",
				parentId: null,
				message: {
					role: "assistant",
					provider: "p",
					model: "m",
					usage: usage(10, 0.5),
					content: [],
					stopReason: "stop",
					api: "x",
					timestamp: 0,
				},
			},
			{
				...base,
				type: "message",
				id: "b",
				parentId: "a",
				message: {
					role: "toolResult",
					toolCallId: "c",
					toolName: "t",
					content: [],
					isError: false,
					usage: usage(5, 0.25),
					timestamp: 0,
				},
			},
			{ ...base, type: "usage", id: "c", parentId: "a", kind: "k", provider: "q", model: "n", usage: usage(3, 0.125) },
			{
				...base,
				type: "compaction",
				id: "d",
				parentId: "c",
				summary: "s",
				firstKeptEntryId: "a",
				tokensBefore: 1,
				usage: { ...usage(2, 0), output: Number.NaN },
			},
			{ ...base, type: "model_change", id: "e", parentId: "d", provider: "p2", modelId: "m2" },
		] as SessionEntry[];
		expect(exportStats(entries)).toEqual({
			entries: 5,
			messages: 2,
			branches: 2,
			models: ["p/m", "p2/m2"],
			input: 4,
			output: 18,
			cacheRead: 0,
			cacheWrite: 0,
			cost: 0.875,
		});
	});
});

it("a file that is not a session: the store's typed error, no page", async () => {
	const file = join(dir, "notes.jsonl");
	writeFileSync(file, "not json\n");
	const error = await exportSessionToHtml(file, { outputPath: join(dir, "notes.html") }).catch((e: unknown) => e);
	expect(error).toMatchObject({ code: "INVALID_SESSION_FILE" });
	expect(existsSync(join(dir, "notes.html"))).toBe(false);
});
