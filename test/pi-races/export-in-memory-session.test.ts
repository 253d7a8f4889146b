/**
 * shaftoe/pi-coding-agent-action#282: a GitHub Action runs pi's SDK on an in-memory session and
 * then writes the run's page with `exportToHtml()` as a build artifact; it failed with "Cannot
 * export in-memory session to HTML" and the run left no record of what the agent did. Settle
 * refused the same way (SDK, `/export` in `settle -i --no-session`, RPC `export_html`), though its
 * page is made from the entries in memory. What that user should get: the page, with the
 * conversation, and still no session file anywhere. Pages opened in real headless Chromium.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { useHarnessAndDir } from "../export/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { sessionFilesUnder } from "./helpers.js";

const scratch = useHarnessAndDir();
const cli = useCliProject("settle-export-in-memory-");

/** What the page shows of its conversation. */
async function shownOn(page: string): Promise<string> {
	// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
	return onExportedPage(page, (tab) => tab.locator("#entries").innerText());
}

describe("pi-coding-agent-action#282: exporting a session that lives only in memory", () => {
	it("pi-coding-agent-action#282: the SDK's exportToHtml() of an in-memory session writes the page with its conversation", async () => {
		const h = await scratch.harness();
		expect(h.session.sessionFile).toBeUndefined();
		h.setResponses([fauxAssistantMessage("CI-RUN-ANSWER fixed the flaky test")]);
		await h.session.prompt("CI-RUN-TASK fix the flaky test");

		const dir = scratch.tempDir("settle-export-in-memory-page-");
		const page = await h.session.exportToHtml(join(dir, "session.html"));
		expect(page).toBe(join(dir, "session.html"));
		const shown = await shownOn(page);
		expect(shown).toContain("CI-RUN-TASK fix the flaky test");
		expect(shown).toContain("CI-RUN-ANSWER fixed the flaky test");
	}, 60_000);

	it("pi-coding-agent-action#282: RPC export_html of `settle --rpc --no-session` writes settle-session-<id>.html; no session file is written", async () => {
		const server = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "p", type: "prompt", message: "RPC-NO-SESSION-PROMPT" });
		await settled;
		const state = await server.request({ id: "s", type: "get_state" });
		const sessionId = (state.data as { sessionId: string }).sessionId;
		const exported = await server.request({ id: "1", type: "export_html" });
		expect(exported).toMatchObject({ command: "export_html", success: true });
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");

		expect(readdirSync(cli.project)).toEqual([`settle-session-${sessionId}.html`]);
		expect((exported.data as { path: string }).path).toBe(`settle-session-${sessionId}.html`);
		expect(await shownOn(join(cli.project, `settle-session-${sessionId}.html`))).toContain("RPC-NO-SESSION-PROMPT");
		expect(sessionFilesUnder(cli.agentDir)).toEqual([]);
	}, 60_000);

	it("pi-coding-agent-action#282: /export in `settle -i --no-session` writes the page and the chat goes on", async () => {
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("CHAT-NO-SESSION-PROMPT", "CHAT-NO-SESSION-PROMPT\n>");
		expect(await chat.say("/export out.html")).toContain(`Session exported to: ${join(cli.project, "out.html")}`);
		await chat.say("still here", "still here\n>");
		expect(await chat.end()).toBe(0);
		expect(await shownOn(join(cli.project, "out.html"))).toContain("CHAT-NO-SESSION-PROMPT");
		expect(sessionFilesUnder(cli.agentDir)).toEqual([]);
	}, 60_000);
});
