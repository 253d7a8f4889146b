/**
 * The exported page in real headless Chromium, opened from file:// as a user opens it: the header,
 * the current branch's messages (text, code blocks, thinking, the tool call with its output, the
 * image, summaries, model and thinking changes, labels, the error reply), clicking another
 * branch's entry in the tree, and hostile session text shown as text, never run — also image data,
 * entry ids and tool, model and provider names (pi#3811 / pi#3883, fixed in pi by escaping them).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionToHtml } from "../../src/export/index.js";
import { launchChromium } from "../inspect/chromium.js";
import { usage } from "../store/helpers.js";
import { HOSTILE_IMG, HOSTILE_OUTPUT, HOSTILE_SCRIPT, type RichSession, richSession } from "./helpers.js";

let rich: RichSession;
let dir: string;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
const errors: string[] = [];
const requests: string[] = [];

beforeAll(async () => {
	rich = await richSession();
	dir = mkdtempSync(join(tmpdir(), "settle-export-page-"));
	const file = join(dir, "session.html");
	await exportSessionToHtml(rich.file, { outputPath: file });
	chromium = await launchChromium();
	page = await chromium.browser.newPage();
	page.on("pageerror", (error) => errors.push(error.message));
	page.on("console", (message) => {
		if (message.type() === "error") errors.push(message.text());
	});
	page.on("request", (request) => requests.push(request.url()));
	await page.goto(pathToFileURL(file).href);
	await page.waitForSelector("body[data-ready='1']");
}, 60_000);

afterAll(async () => {
	await chromium?.close();
	rich?.h.cleanup();
	if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The text a user sees (innerText: collapsed and hidden parts are not in it, unlike textContent). */
// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
const visible = (locator: Locator) => locator.innerText();
const mainText = () => visible(page.locator("#entries"));
const pathIds = () =>
	page.$$eval("#entries [data-entry-id]", (nodes) => nodes.map((n) => n.getAttribute("data-entry-id")));

/** Opens the exported `html` in a page of its own, runs `check` on it, and closes it. */
async function onExportedPage(html: string, check: (page: Page) => Promise<void>): Promise<void> {
	const other = await chromium.browser.newPage();
	try {
		await other.goto(pathToFileURL(html).href);
		await other.waitForSelector("body[data-ready='1']");
		await check(other);
	} finally {
		await other.close();
	}
}

describe("the exported page in Chromium", () => {
	it("shows the header with the session's id, cwd, models and totals", async () => {
		const header = await visible(page.locator("header"));
		const sm = rich.h.sessionManager;
		expect(header).toContain(sm.getSessionId());
		expect(header).toContain(sm.getCwd());
		expect(header).toContain("faux/faux-1, faux/faux-2");
		expect(header).toMatch(/Tokens\s+[\d,]+ in, [\d,]+ out/);
		expect(header).toMatch(/Cost\s+\$\d+\.\d{4}/);
		expect(header).toContain("2 branches");
	});

	it("shows the current branch (root → leaf) and not the abandoned one", async () => {
		const sm = rich.h.sessionManager;
		const expected = sm
			.getBranch()
			.filter((entry) => !(entry.type === "message" && entry.message.role === "toolResult"))
			.map((entry) => entry.id);
		expect(await pathIds()).toEqual(expected);
		const text = await mainText();
		expect(text).toContain("current question");
		expect(text).toContain("BRANCH-SUMMARY-TEXT");
		expect(text).toContain("Model: faux/faux-2");
		expect(text).toContain("Thinking level: high");
		expect(text).toContain("EXTENSION-NOTE");
		expect(text).toContain("LABEL-CURRENT");
		expect(text).toContain("Error: permission_error: FAILED-REPLY");
		expect(text).not.toContain("abandoned question");
		// The compaction summary is collapsed, but in the page.
		expect(await page.locator("#entries .summary details").first().textContent()).toContain("COMPACTED-SUMMARY-TEXT");
		// The leaf is selected in the tree, and every entry of its path is marked.
		expect(await page.locator(".node.selected").getAttribute("data-id")).toBe(sm.getLeafId());
		expect(await page.locator(".node.on-path").count()).toBe(sm.getBranch().length);
		// The branch point's children are marked: the older branch ├, the newer └.
		expect(await page.locator(".node .fork").allTextContents()).toEqual(["├ ", "└ "]);
		expect(await page.locator(`.node[data-id="${rich.abandonedUser.id}"] .fork`).textContent()).toBe("├ ");
	});

	it("renders code fences as code blocks, thinking collapsed, the tool call with its real output, the image", async () => {
		expect(await page.locator("#entries pre.code", { hasText: "const x = 1;" }).count()).toBe(1);
		const thinking = page.locator("#entries .thinking details").first();
		expect(await thinking.getAttribute("open")).toBeNull();
		expect(await thinking.textContent()).toContain("Greeting the user.");
		const tool = page.locator("#entries .tool").first();
		expect(await visible(tool.locator(".tool-name"))).toBe("bash");
		expect(await visible(tool)).toContain(`$ printf '%s' '${HOSTILE_OUTPUT}'`);
		// The bash tool really ran: its output is the hostile text, shown as text.
		expect(await visible(tool.locator("pre").nth(1))).toBe(HOSTILE_OUTPUT);
		const image = page.locator("#entries img.attachment");
		expect(await image.count()).toBe(1);
		expect(
			await image.evaluate((img) => {
				const loaded = img as unknown as { complete: boolean; naturalWidth: number };
				return loaded.complete && loaded.naturalWidth;
			}),
		).toBe(1);
	});

	it("clicking an entry of the other branch shows that branch's path", async () => {
		await page.locator(`.node[data-id="${rich.abandonedUser.id}"]`).click();
		const expected = rich.h.sessionManager
			.getBranch(rich.abandonedUser.id)
			.filter((entry) => !(entry.type === "message" && entry.message.role === "toolResult"))
			.map((entry) => entry.id);
		expect(await pathIds()).toEqual(expected);
		const text = await mainText();
		expect(text).toContain("abandoned question");
		expect(text).toContain("LABEL-ABANDONED");
		expect(text).not.toContain("current question");
		expect(await page.locator(".node.selected").getAttribute("data-id")).toBe(rich.abandonedUser.id);
		expect(await page.locator("#entries .entry.target").getAttribute("data-entry-id")).toBe(rich.abandonedUser.id);
		// And back to the leaf.
		await page.locator(`.node[data-id="${rich.h.sessionManager.getLeafId()}"]`).click();
		expect(await mainText()).toContain("current question");
	});

	it("never runs session content: hostile text is shown as text, nothing loads, no page error", async () => {
		expect(await page.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
		const all = await visible(page.locator("body"));
		expect(all).toContain(HOSTILE_SCRIPT);
		expect(all).toContain(HOSTILE_IMG);
		// Only the data: image besides the page itself; no element made from session text.
		expect(requests.filter((url) => !url.startsWith("file:") && !url.startsWith("data:"))).toEqual([]);
		expect(await page.locator("#entries script, #entries img:not(.attachment), #tree img").count()).toBe(0);
		expect(errors).toEqual([]);
	});

	it("defense in depth: the page's Content-Security-Policy blocks any script but its own, inline handlers and loads", async () => {
		// As if a rendering bug let markup through: scripts and handlers injected into the page.
		const html = readFileSync(join(dir, "session.html"), "utf8").replace(
			'<div id="entries"></div>',
			'<div id="entries"></div><script>window.pwned=7</script><img src="x" onerror="window.pwned=8"><img src="https://example.invalid/p.png">',
		);
		const injected = join(dir, "injected.html");
		writeFileSync(injected, html);
		const other = await chromium.browser.newPage();
		const failed: string[] = [];
		other.on("requestfailed", (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`));
		try {
			await other.goto(pathToFileURL(injected).href);
			await other.waitForSelector("body[data-ready='1']");
			expect(await other.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
			// The remote image was not fetched: the browser refused it (no DNS lookup for .invalid either).
			expect(failed.filter((line) => line.startsWith("http"))).toEqual(["https://example.invalid/p.png csp"]);
		} finally {
			await other.close();
		}
	});

	it("pi#3811 / pi#3883: image data, entry ids, tool, model and provider names shaped as markup are shown as text, never run", async () => {
		const hostile = (n: number) => `"><img src=x onerror="window.pwned=${n}">`;
		const line = (entry: Record<string, unknown>) => `${JSON.stringify(entry)}\n`;
		const at = "2026-01-01T00:00:00.000Z";
		const ids = ["u1", `a${hostile(1)}`, "t1"];
		const source = join(dir, "hostile-metadata.jsonl");
		writeFileSync(
			source,
			line({ type: "session", version: 3, id: "s1", timestamp: at, cwd: dir }) +
				line({
					type: "model_change",
					id: "m1",
					parentId: null,
					timestamp: at,
					provider: hostile(2),
					modelId: hostile(3),
				}) +
				line({
					type: "message",
					id: ids[0],
					parentId: "m1",
					timestamp: at,
					message: {
						role: "user",
						content: [
							{ type: "text", text: "look" },
							{ type: "image", mimeType: `image/png${hostile(4)}`, data: "iVBORw0KGgo=" },
							{ type: "image", mimeType: "image/png", data: `iVBORw0KGgo=${hostile(5)}` },
						],
						timestamp: 1,
					},
				}) +
				line({
					type: "message",
					id: ids[1],
					parentId: ids[0],
					timestamp: at,
					message: {
						role: "assistant",
						content: [{ type: "toolCall", id: "c1", name: hostile(6), arguments: {} }],
						api: "faux",
						provider: hostile(7),
						model: hostile(8),
						usage: {
							input: 1,
							output: 1,
							cacheRead: 0,
							cacheWrite: 0,
							totalTokens: 2,
							cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
						},
						stopReason: "toolUse",
						timestamp: 2,
					},
				}) +
				line({
					type: "message",
					id: ids[2],
					parentId: ids[1],
					timestamp: at,
					message: {
						role: "toolResult",
						toolCallId: "c1",
						toolName: hostile(9),
						content: [{ type: "image", mimeType: `image/gif${hostile(10)}`, data: "R0lGODlh" }],
						isError: false,
						timestamp: 3,
					},
				}) +
				line({ type: "thinking_level_change", id: "k1", parentId: ids[2], timestamp: at, thinkingLevel: hostile(11) }),
		);
		const html = join(dir, "hostile-metadata.html");
		await exportSessionToHtml(source, { outputPath: html });
		const other = await chromium.browser.newPage();
		const pageErrors: string[] = [];
		other.on("pageerror", (error) => pageErrors.push(error.message));
		try {
			await other.goto(pathToFileURL(html).href);
			await other.waitForSelector("body[data-ready='1']");
			expect(await other.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
			expect(await other.locator("img").count()).toBe(0);
			const all = await visible(other.locator("body"));
			expect(all).toContain(hostile(3));
			expect(all).toContain(hostile(6));
			expect(pageErrors).toEqual([]);
		} finally {
			await other.close();
		}
	});

	it("a long tool output shows its first lines until expanded", async () => {
		const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");
		const html = join(dir, "long.html");
		const { SessionManager } = await import("../../src/store/session-manager.js");
		const sm = SessionManager.create(dir, join(dir, "long-sessions"));
		// An image block whose type is not an image: not made into an <img>.
		sm.appendMessage({
			role: "user",
			content: [
				{ type: "text", text: "go" },
				{ type: "image", mimeType: "text/html", data: "PGgxPng8L2gxPg==" },
			],
			timestamp: 1,
		});
		sm.appendMessage({
			role: "bashExecution",
			command: "seq",
			output: long,
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 2,
		});
		await exportSessionToHtml(sm, { outputPath: html });
		sm.close();
		await onExportedPage(html, async (other) => {
			expect(await other.locator("#entries img").count()).toBe(0);
			expect(await visible(other.locator("#entries"))).toContain("[image: text/html not shown]");
			const output = other.locator("#entries pre").nth(1);
			expect(await visible(output)).toBe(long.split("\n").slice(0, 12).join("\n"));
			await other.locator("button.more", { hasText: "Show all 40 lines" }).click();
			expect(await visible(output)).toBe(long);
		});
	});

	it("a signed thinking block with no text (a provider that keeps its reasoning hidden) shows no empty Thinking section, as pi's export skips it; one with text still shows", async () => {
		const html = join(dir, "signed-empty-thinking.html");
		const { SessionManager } = await import("../../src/store/session-manager.js");
		const sm = SessionManager.create(dir, join(dir, "signed-empty-thinking-sessions"));
		const answer = (thinking: string, text: string) => ({
			role: "assistant" as const,
			content: [
				{ type: "thinking" as const, thinking, thinkingSignature: "sig-abc" },
				{ type: "text" as const, text },
			],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			usage,
			stopReason: "stop" as const,
			timestamp: 2,
		});
		sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		sm.appendMessage(answer("", "HIDDEN-REASONING-ANSWER"));
		sm.appendMessage({ role: "user", content: "again", timestamp: 3 });
		sm.appendMessage(answer("SHOWN-REASONING", "SHOWN-REASONING-ANSWER"));
		await exportSessionToHtml(sm, { outputPath: html });
		sm.close();
		await onExportedPage(html, async (other) => {
			const [hidden, shown] = await other.locator("#entries .entry.assistant").all();
			expect(await visible(hidden)).toContain("HIDDEN-REASONING-ANSWER");
			expect(await hidden.locator(".thinking").count()).toBe(0);
			expect(await shown.locator(".thinking").count()).toBe(1);
			expect(await shown.locator(".thinking").textContent()).toContain("SHOWN-REASONING");
		});
	});

	it("a redacted thinking block shows its provider's text under Thinking (redacted), as pi's export shows it; one with blank text shows nothing, as pi's", async () => {
		const html = join(dir, "redacted-thinking.html");
		const { SessionManager } = await import("../../src/store/session-manager.js");
		const sm = SessionManager.create(dir, join(dir, "redacted-thinking-sessions"));
		const answer = (thinking: string, text: string) => ({
			role: "assistant" as const,
			content: [
				{ type: "thinking" as const, thinking, thinkingSignature: "opaque-payload", redacted: true },
				{ type: "text" as const, text },
			],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			usage,
			stopReason: "stop" as const,
			timestamp: 2,
		});
		sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		sm.appendMessage(answer("[Reasoning redacted]", "REDACTED-WITH-TEXT-ANSWER"));
		sm.appendMessage({ role: "user", content: "again", timestamp: 3 });
		sm.appendMessage(answer(" ", "REDACTED-BLANK-ANSWER"));
		await exportSessionToHtml(sm, { outputPath: html });
		sm.close();
		await onExportedPage(html, async (other) => {
			const [withText, blank] = await other.locator("#entries .entry.assistant").all();
			if (!withText || !blank) throw new Error("both answers should be shown");
			await withText.locator(".thinking summary").click();
			expect(await visible(withText.locator(".thinking"))).toBe("Thinking (redacted)\n[Reasoning redacted]");
			expect(await visible(blank)).toContain("REDACTED-BLANK-ANSWER");
			expect(await blank.locator(".thinking").count()).toBe(0);
		});
	});

	it("a hand-edited or broken entry (a text block, summary or tool result content missing) shows empty, never the word undefined", async () => {
		const at = "2026-01-01T00:00:00.000Z";
		const line = (entry: Record<string, unknown>) => `${JSON.stringify(entry)}\n`;
		const message = (id: string, parentId: string | null, m: Record<string, unknown>) =>
			line({ type: "message", id, parentId, timestamp: at, message: { timestamp: 1, ...m } });
		const source = join(dir, "broken-fields.jsonl");
		writeFileSync(
			source,
			line({ type: "session", version: 3, id: "s1", timestamp: at, cwd: dir }) +
				message("u1", null, { role: "user", content: [{ type: "text" }, { type: "text", text: "ASKED" }] }) +
				message("a1", "u1", {
					role: "assistant",
					content: [{ type: "text" }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "f.txt" } }],
					api: "faux",
					provider: "faux",
					model: "faux-1",
					usage,
					stopReason: "toolUse",
				}) +
				message("t1", "a1", { role: "toolResult", toolCallId: "c1", toolName: "read", isError: false }) +
				message("t2", "t1", {
					role: "toolResult",
					toolCallId: "c2",
					toolName: "ls",
					content: [{ type: "text" }],
					isError: false,
				}) +
				line({ type: "compaction", id: "k1", parentId: "t2", timestamp: at, firstKeptEntryId: "u1", tokensBefore: 5 }) +
				line({ type: "branch_summary", id: "b1", parentId: "k1", timestamp: at, fromId: "u1" }) +
				message("k2", "b1", { role: "compactionSummary", tokensBefore: 5 }) +
				message("b2", "k2", { role: "branchSummary", fromId: "u1" }) +
				line({
					type: "custom_message",
					id: "x1",
					parentId: "b2",
					timestamp: at,
					customType: "note",
					content: [{ type: "text" }],
					display: true,
				}),
		);
		const html = join(dir, "broken-fields.html");
		await exportSessionToHtml(source, { outputPath: html });
		await onExportedPage(html, async (other) => {
			// Every collapsed part open (the compaction's summary), so its text is visible too.
			await other.$$eval("details", (nodes) => {
				for (const node of nodes) node.setAttribute("open", "");
			});
			const all = await visible(other.locator("body"));
			expect(all).toContain("ASKED");
			expect(all).toContain("Branch summary");
			expect(all).not.toContain("undefined");
		});
	});

	it("the tree names a user message by what it holds: `[image]` only when it has an image, `(empty)` when its text blocks are empty and it has none", async () => {
		const at = "2026-01-01T00:00:00.000Z";
		const line = (entry: Record<string, unknown>) => `${JSON.stringify(entry)}\n`;
		const user = (id: string, parentId: string | null, content: unknown) =>
			line({ type: "message", id, parentId, timestamp: at, message: { role: "user", content, timestamp: 1 } });
		const source = join(dir, "empty-user.jsonl");
		writeFileSync(
			source,
			line({ type: "session", version: 3, id: "s1", timestamp: at, cwd: dir }) +
				user("u1", null, [{ type: "text", text: "" }]) +
				user("u2", "u1", [
					{ type: "text", text: "" },
					{ type: "text", text: " " },
				]) +
				user("u3", "u2", [
					{ type: "text", text: "" },
					{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
				]) +
				user("u4", "u3", [{ type: "text", text: "ASKED" }]),
		);
		const html = join(dir, "empty-user.html");
		await exportSessionToHtml(source, { outputPath: html });
		await onExportedPage(html, async (other) => {
			const row = (id: string) => visible(other.locator(`.node[data-id="${id}"]`));
			expect(await row("u1")).toBe("user: (empty)");
			expect(await row("u2")).toBe("user: (empty)");
			expect(await row("u3")).toBe("user: [image]");
			expect(await row("u4")).toBe("user: ASKED");
		});
	});

	it("an answer whose provider names another model than the one asked (openrouter/auto) says which answered; one naming the same model says nothing more, in its line and the header's models, as /session's usage does", async () => {
		const html = join(dir, "routed.html");
		const { SessionManager } = await import("../../src/store/session-manager.js");
		const sm = SessionManager.create(dir, join(dir, "routed-sessions"));
		const answer = (model: string, text: string, responseModel?: string) => ({
			role: "assistant" as const,
			content: [{ type: "text" as const, text }],
			api: "openai-completions",
			provider: "openrouter",
			model,
			...(responseModel ? { responseModel } : {}),
			usage,
			stopReason: "stop" as const,
			timestamp: 2,
		});
		sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		// What pi-ai's OpenAI-compatible client records: the model the stream's chunks name.
		sm.appendMessage(answer("openrouter/auto", "ROUTED-ANSWER", "anthropic/claude-sonnet-4.5"));
		sm.appendMessage({ role: "user", content: "again", timestamp: 3 });
		sm.appendMessage(answer("qwen/qwen3-coder", "SAME-MODEL-ANSWER", "qwen/qwen3-coder"));
		await exportSessionToHtml(sm, { outputPath: html });
		sm.close();
		await onExportedPage(html, async (other) => {
			const [routed, same] = await other.locator("#entries .entry.assistant .role").allInnerTexts();
			expect(routed).toContain("openrouter/openrouter/auto (answered by anthropic/claude-sonnet-4.5) · ");
			expect(same).toContain("openrouter/qwen/qwen3-coder · ");
			expect(same).not.toContain("answered by");
			expect(await visible(other.locator("header"))).toContain(
				"openrouter/anthropic/claude-sonnet-4.5, openrouter/qwen/qwen3-coder",
			);
		});
	});

	it("a `!` command that timed out is labelled as timed out, as the model reads it, not as cancelled", async () => {
		const html = join(dir, "timed-out.html");
		const { SessionManager } = await import("../../src/store/session-manager.js");
		const sm = SessionManager.create(dir, join(dir, "timed-out-sessions"));
		sm.appendMessage({
			role: "bashExecution",
			command: "sleep 60",
			output: "",
			exitCode: undefined,
			cancelled: true,
			truncated: false,
			timedOutAfter: 5,
			timestamp: 1,
		});
		sm.appendMessage({
			role: "bashExecution",
			command: "sleep 61",
			output: "",
			exitCode: undefined,
			cancelled: true,
			truncated: false,
			timestamp: 2,
		});
		await exportSessionToHtml(sm, { outputPath: html });
		sm.close();
		await onExportedPage(html, async (other) => {
			const [timedOut, cancelled] = await other.locator("#entries .entry.user").all();
			if (!timedOut || !cancelled) throw new Error("both `!` commands should be shown");
			expect(await visible(timedOut)).toContain("timed out after 5 seconds");
			expect(await visible(timedOut)).not.toContain("cancelled");
			expect(await visible(cancelled)).toContain("cancelled");
		});
	});

	it("a `!` command whose output was not UTF-8 says its bytes were replaced, as the model and settle -i are told", async () => {
		const html = join(dir, "not-utf8.html");
		const { SessionManager } = await import("../../src/store/session-manager.js");
		const sm = SessionManager.create(dir, join(dir, "not-utf8-sessions"));
		sm.appendMessage({
			role: "bashExecution",
			command: "cat latin1.txt",
			output: "caf\ufffd",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			notUtf8: true,
			timestamp: 1,
		});
		await exportSessionToHtml(sm, { outputPath: html });
		sm.close();
		await onExportedPage(html, async (other) => {
			expect(await visible(other.locator("#entries .entry.user > .meta").last())).toBe(
				"exit code 0, bytes that are not UTF-8 text shown as \ufffd",
			);
		});
	});

	it("a big session: the tree draws only the rows in view, the path shows its last 400 entries, earlier ones on demand", async () => {
		const { SessionManager } = await import("../../src/store/session-manager.js");
		const sm = SessionManager.create(dir, join(dir, "big-sessions"));
		const ids: string[] = [];
		for (let i = 0; i < 3000; i++) {
			ids.push(sm.appendMessage({ role: "user", content: `message ${i}`, timestamp: i }));
		}
		// A second branch off message 10: far down in the tree (after the 3,000-entry chain).
		sm.branch(ids[10]!);
		const side = sm.appendMessage({ role: "user", content: "side branch", timestamp: 5000 });
		sm.branch(ids.at(-1)!);
		const html = join(dir, "big.html");
		await exportSessionToHtml(sm, { outputPath: html });
		sm.close();
		await onExportedPage(html, async (big) => {
			expect(await big.locator(".node").count()).toBeLessThan(150);
			// The leaf (message 2999) is selected and in view.
			expect(await big.locator(".node.selected").getAttribute("data-id")).toBe(ids.at(-1));
			const shown = () =>
				big.$$eval("#entries [data-entry-id]", (nodes) => nodes.map((n) => n.getAttribute("data-entry-id")));
			expect(await shown()).toEqual(ids.slice(-400));
			await big.locator("#earlier").click();
			expect(await shown()).toEqual(ids.slice(-800));
			// Scroll the tree to its end: the side branch's row is drawn; clicking it shows its path.
			await big.locator("#tree").evaluate((tree) => {
				(tree as unknown as { scrollTop: number; scrollHeight: number }).scrollTop = 1e9;
			});
			await big.locator(`.node[data-id="${side}"]`).click();
			expect(await shown()).toEqual([...ids.slice(0, 11), side]);
			expect(await visible(big.locator("#entries"))).toContain("side branch");
		});
	}, 60_000);
});
