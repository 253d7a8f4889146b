/**
 * openclaw#151029: a long session exported to HTML opened blank: the export said it succeeded, and
 * in Chrome the page stopped with `RangeError: Maximum call stack size exceeded` (a recursive walk of
 * the session tree while sorting children), drawing neither the sidebar nor a single message, on a
 * plain 10,000-message chain. pi 0.73.1's page fails the same way (README, HTML export). What that
 * user should see: the conversation and its tree, each branch reachable. Settle's page walks the tree
 * without recursion and draws lazily, so it holds: a 50,000-message chain (five times the report's;
 * a recursive walk of the tree overflows at that depth in Chromium) with a branch near its root, exported by the real `settle --export`, opens in real headless Chromium with no page error;
 * the leaf is selected and shown, earlier messages come on demand, the side branch's path is shown
 * when its row is clicked.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { useCliProject } from "../cli/helpers.js";
import { launchChromium } from "../inspect/chromium.js";

const cli = useCliProject("settle-export-long-");
const MESSAGES = 50_000;

function longSession(): { file: string; ids: string[]; side: string } {
	const sessions = join(cli.dir, "sessions");
	const sm = SessionManager.create(cli.project, sessions);
	const ids: string[] = [];
	let side = "";
	for (let i = 0; i < MESSAGES; i++) {
		if (i === 10) {
			// A branch off message 9, written before the chain goes on: the chain's end stays the leaf.
			side = sm.appendMessage({ role: "user", content: "the side branch", timestamp: MESSAGES });
			sm.branch(ids[9]!);
		}
		ids.push(
			i % 2 === 0
				? sm.appendMessage({ role: "user", content: `question ${i}`, timestamp: i })
				: sm.appendMessage({
						role: "assistant",
						content: [{ type: "text", text: `answer ${i}` }],
						api: "faux",
						provider: "faux",
						model: "faux-1",
						usage: {
							input: 1,
							output: 1,
							cacheRead: 0,
							cacheWrite: 0,
							totalTokens: 2,
							cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
						},
						stopReason: "stop",
						timestamp: i,
					}),
		);
	}
	sm.close();
	const [name] = readdirSync(sessions).filter((file) => file.endsWith(".jsonl"));
	return { file: join(sessions, name!), ids, side };
}

describe("openclaw#151029: a long session's HTML export opens blank (call stack exceeded)", () => {
	it("openclaw#151029: a 50,000-message chain exported by `settle --export` renders in Chromium with no page error; every branch is reachable", {
		timeout: 120_000,
	}, async () => {
		const { file, ids, side } = longSession();
		const out = join(cli.dir, "long.html");
		expect(cli.settle(["--export", file, out])).toMatchObject({ code: 0, stderr: "" });

		const chromium = await launchChromium();
		try {
			const tab = await chromium.browser.newPage();
			const errors: string[] = [];
			let failed: (error: Error) => void = () => {};
			const pageFailed = new Promise<never>((_, reject) => {
				failed = reject;
			});
			pageFailed.catch(() => {});
			tab.on("pageerror", (error) => {
				errors.push(String(error));
				failed(error);
			});
			await tab.goto(pathToFileURL(out).href);
			// A page error while it builds (the report's RangeError) fails here, not after a timeout.
			await Promise.race([tab.waitForSelector("body[data-ready='1']"), pageFailed]);
			const shown = () =>
				tab.$$eval("#entries [data-entry-id]", (nodes) => nodes.map((n) => n.getAttribute("data-entry-id")));
			expect(await tab.locator(".node.selected").getAttribute("data-id")).toBe(ids.at(-1));
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			expect(await tab.locator("#entries").innerText()).toContain(`answer ${MESSAGES - 1}`);
			expect(await shown()).toEqual(ids.slice(-400));
			await tab.locator("#earlier").click();
			expect(await shown()).toEqual(ids.slice(-800));
			// The side branch was written before the rest of the chain: its row is near the top (siblings in
			// the order they were written).
			await tab.locator("#tree").evaluate((tree) => {
				(tree as unknown as { scrollTop: number }).scrollTop = 0;
			});
			await tab.locator(`.node[data-id="${side}"]`).click();
			expect(await shown()).toEqual([...ids.slice(0, 10), side]);
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			expect(await tab.locator("#entries").innerText()).toContain("the side branch");
			expect(errors).toEqual([]);
		} finally {
			await chromium.close();
		}
	});
});
