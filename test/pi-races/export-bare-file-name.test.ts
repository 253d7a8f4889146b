/**
 * claude-code#46596: `/export foo` in a chat made `foo.txt` and left it empty (and the clipboard
 * choice copied nothing): the conversation the user wanted to keep was not in the file.
 * kodu-ai/claude-coder#21: an exported conversation always lacked its last step, the answer that
 * concluded it. Replayed in a real `settle -i` (the faux model answers each prompt with its text):
 * two exchanges, then `/export foo`, a name without an extension. Settle wrote the page to `foo`,
 * which Chromium opens as text/plain: the page's source, no conversation. What that user should
 * get: a page that opens as one (`foo.html`, named in the reply), holding both exchanges, the last
 * answer included. Real headless Chromium, the page opened from file://.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { onExportedPage } from "../inspect/chromium.js";

const cli = useCliProject("settle-export-bare-name-");

describe("claude-code#46596, kodu-ai/claude-coder#21: /export to a bare name, right after the last answer", () => {
	it("claude-code#46596: `/export foo` writes the whole page to ./foo.html, which opens as a page with the last answer on it (kodu-ai/claude-coder#21)", async () => {
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("FIRST-STEP install the packages", "FIRST-STEP install the packages\n>");
		await chat.say("FINAL-STEP the fix is done", "FINAL-STEP the fix is done\n>");
		expect(await chat.say("/export foo")).toContain(`Session exported to: ${join(cli.project, "foo.html")}\n`);
		expect(await chat.end()).toBe(0);

		expect(readdirSync(cli.project)).toEqual(["foo.html"]);
		const blocks = await onExportedPage(join(cli.project, "foo.html"), async (tab) => {
			await tab.locator("#entries").getByText("FINAL-STEP the fix is done").first().waitFor();
			return tab.locator("#entries > *").allInnerTexts();
		});
		// Each prompt and its answer (the faux model answers with the prompt's text): four messages.
		expect(blocks.filter((text) => text.includes("FIRST-STEP install the packages"))).toHaveLength(2);
		expect(blocks.filter((text) => text.includes("FINAL-STEP the fix is done"))).toHaveLength(2);
	}, 90_000);

	it("claude-code#46596: a name that exists is written as named: `/export notes` over the file notes; a folder is refused, as before", async () => {
		writeFileSync(join(cli.project, "notes"), "old notes\n");
		mkdirSync(join(cli.project, "exports"));
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("ONLY-STEP", "ONLY-STEP\n>");
		expect(await chat.say("/export notes")).toContain(`Session exported to: ${join(cli.project, "notes")}\n`);
		expect(await chat.say("/export exports")).toMatch(/Cannot write the HTML export to .*exports: it is a folder/);
		expect(await chat.end()).toBe(0);
		expect(readFileSync(join(cli.project, "notes"), "utf8")).toMatch(/^<!DOCTYPE html>/i);
		expect(readdirSync(cli.project).sort()).toEqual(["exports", "notes"]);
		expect(readdirSync(join(cli.project, "exports"))).toEqual([]);
	}, 90_000);
});
