/**
 * pi-subagents#94: in a new session, a slash command whose result is a message an extension adds
 * (`/run some-agent task`: no prompt to the model yet) showed in the chat, and `/export` then failed
 * with "Nothing to export yet - start a conversation first"; what the user saw could not be exported.
 * Like pi, Settle writes a new session's file with the first user or assistant message, and its
 * export refused while that file did not exist, though the page is made from the entries in memory.
 * What that user should see: the page, with every message the session has. The same for a `!`
 * command (RPC `bash`) run before the first prompt. Only a session with no message at all still has
 * nothing to export. Checked in real headless Chromium, the page opened from file://.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { useHarnessAndDir } from "../export/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";

const scratch = useHarnessAndDir();

const cli = useCliProject("settle-export-before-answer-");

describe("pi-subagents#94: /export of a new session whose only messages came from an extension command", () => {
	it("pi-subagents#94: a command's displayed message, before any prompt, is on the exported page; no session file is written by the export", async () => {
		const h = await scratch.harness({
			persistence: "disk",
			extensionFactories: [
				(pi) => {
					pi.registerCommand("run", {
						description: "Runs a subagent and shows its result",
						handler: async (args) => {
							pi.sendMessage({ customType: "subagent-result", content: `SUBAGENT-RESULT for ${args}`, display: true });
						},
					});
				},
			],
		});
		await h.session.prompt("/run some-agent the task");
		await h.session.waitForIdle();
		expect(h.extensionErrors).toEqual([]);
		expect(h.faux.requests).toHaveLength(0);

		const dir = scratch.tempDir("settle-export-before-answer-");
		const page = await h.session.exportToHtml(join(dir, "session.html"));
		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		const shown = await onExportedPage(page, (tab) => tab.locator("#entries").innerText());
		expect(shown).toContain("SUBAGENT-RESULT for some-agent the task");
		// The export reads the session; it does not start its file.
		expect(existsSync(h.session.sessionFile!)).toBe(false);
	}, 60_000);

	it("pi-subagents#94: RPC export_html after only a `bash` command answers with the page, which shows the command and its output; a session with nothing still has nothing to export", async () => {
		const server = new RpcClient(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await server.request({ id: "0", type: "export_html", outputPath: "empty.html" })).toMatchObject({
			success: false,
			error: "Nothing to export yet - start a conversation first",
		});
		expect(await server.request({ id: "1", type: "bash", command: "echo BASH-OUTPUT-94" })).toMatchObject({
			success: true,
		});
		const page = join(cli.project, "session.html");
		expect(await server.request({ id: "2", type: "export_html", outputPath: page })).toEqual({
			id: "2",
			type: "response",
			command: "export_html",
			success: true,
			data: { path: page },
		});
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		const shown = await onExportedPage(page, (tab) => tab.locator("#entries").innerText());
		expect(shown).toContain("echo BASH-OUTPUT-94");
		expect(shown).toContain("BASH-OUTPUT-94\n");
	}, 60_000);
});
