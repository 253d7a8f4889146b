/**
 * makenotion/lore#828, junhoyeo/tokscale#1185: costs shown at a fixed precision rendered a small
 * but non-zero spending as `$0.00`: a priced model could not be told from an unpriced one, and the
 * usage it billed looked free. Replayed with a real `settle -i` process on a local OpenAI-compatible
 * endpoint (test/llm/wire/server.ts) reached through pi-ai's client, and the session's page exported
 * and opened in real headless Chromium. What the user should see: a cheap model's answer of 200 +
 * 20 tokens ($0.000018) read as more than zero (`<$0.0001`) in `/session` and in the exported page,
 * and an unpriced model's as `$0.0000`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { exportSessionToHtml } from "../../src/export/index.js";
import { useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { bannerSessionFile, Repl } from "../cli/interactive.helpers.js";
import { launchChromium } from "../inspect/chromium.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-usage-sub-cent-");
const server = useWireServer();

/** `/session` after one answer of 200 prompt and 20 completion tokens on a model priced `cost`. */
async function sessionAfterOneAnswer(cost: Record<string, number> | undefined) {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", ...(cost ? { cost } : {}) }] });
	server.reply(chatReply([{ type: "text", text: "hello" }], { usage: { prompt: 200, completion: 20 } }));
	const chat = new Repl(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
	await chat.idle(0);
	await chat.say("hi", "hello");
	const info = await chat.say("/session", "context:");
	expect(await chat.end()).toBe(0);
	return { info, file: bannerSessionFile(chat.stdout) };
}

describe("lore#828, tokscale#1185: a cost below the shown precision is not shown as zero", () => {
	it("lore#828: settle -i on a model at $0.05/$0.40 per million: one answer of 200 + 20 tokens ($0.000018): /session's cost and spent read <$0.0001, and so does the exported page", async () => {
		const { info, file } = await sessionAfterOneAnswer({ input: 0.05, output: 0.4 });
		expect(info).toContain("  tokens: 220 (input 200, output 20, cache read 0, cache write 0), cost <$0.0001\n");
		expect(info).toContain("  spent: <$0.0001 (220 tokens) in this session file, all branches\n");

		const dir = mkdtempSync(join(tmpdir(), "settle-usage-sub-cent-"));
		const chromium = await launchChromium();
		try {
			const html = join(dir, "session.html");
			await exportSessionToHtml(file, { outputPath: html });
			const page = await chromium.browser.newPage();
			await page.goto(pathToFileURL(html).href);
			await page.waitForSelector("body[data-ready='1']");
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const facts = await page.locator("#facts").innerText();
			expect(facts).toMatch(/Cost\s+<\$0\.0001/);
			// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
			const line = await page.locator("#entries .role", { hasText: "Assistant" }).first().innerText();
			expect(line).toContain("200 in, 20 out, <$0.0001");
		} finally {
			await chromium.close();
			rmSync(dir, { recursive: true, force: true });
		}
	}, 60_000);

	it("tokscale#1185: the same answer on a model with no price: /session's cost and spent read $0.0000", async () => {
		const { info } = await sessionAfterOneAnswer(undefined);
		expect(info).toContain("cache write 0), cost $0.0000\n");
		expect(info).toContain("  spent: $0.0000 (220 tokens) in this session file, all branches\n");
	});
});
