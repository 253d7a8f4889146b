/**
 * kon#79: in a new session, a `!` command (the user's own shell command, here a failing one) and
 * then `/export` gave "Export failed: Session not found": the export looked the session up in the
 * store, where a session appears only with its first message to the model.
 *
 * Replayed against a real `settle -i`, whose session file is written with the first user or
 * assistant message (as pi's): what the user should see is the page, with the command and its
 * output, opened here in real headless Chromium; the export starts no session file.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-export-after-command-");

describe("kon#79: /export in a new session whose only message is a ! command", () => {
	it("kon#79: settle -i: `!` a failing command, then /export: the page shows the command, its output and exit code; no session file is started by it", async () => {
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("!echo KON-79-OUTPUT; exit 3");
		const page = join(cli.project, "page.html");
		expect(await chat.say(`/export ${page}`)).toContain(`Session exported to: ${page}`);
		expect(existsSync(page)).toBe(true);
		expect(sessionFilesUnder(cli.agentDir)).toEqual([]);
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
		expect(chat.stderr).toBe("");

		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		const shown = await onExportedPage(page, (tab) => tab.locator("#entries").innerText());
		expect(shown).toContain("$ echo KON-79-OUTPUT; exit 3");
		expect(shown).toMatch(/^KON-79-OUTPUT$/m);
		expect(shown).toContain("exit code 3");
	}, 60_000);
});
