/**
 * qwen-code#2266, qwen-code#2267: with several sessions in one project, `/export html` (and md,
 * json, jsonl) wrote another session's conversation, not the one open: every export loaded "the last
 * session" (the newest file by modification time) instead of the active session's id.
 *
 * Replayed against Settle with real processes: two sessions written by `settle -p` in one project,
 * then a `settle --rpc` on the older one that exports, switches to the newer one and exports, starts
 * a new one and exports. What the user should see: each page is the session open when it was
 * exported, never the newest file's. The pages are opened in real headless Chromium.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-export-current-");

/** The session id in a session file's header. */
function headerId(file: string): string {
	return (JSON.parse(readFileSync(file, "utf8").split("\n", 1)[0]!) as { id: string }).id;
}

/** What the exported page shows: its header facts and its conversation. */
function shownOn(page: string): Promise<{ facts: string; entries: string }> {
	return onExportedPage(page, async (tab) => ({
		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		facts: await tab.locator("#facts").innerText(),
		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		entries: await tab.locator("#entries").innerText(),
	}));
}

describe("qwen-code#2266, qwen-code#2267: exporting with several sessions in the project", () => {
	it("qwen-code#2266: export_html writes the session open now (an older one resumed, one switched to, a new one), never the newest file", async () => {
		expect(cli.settle(["--faux", "-p", "OLDER-SESSION-QUESTION"]).code).toBe(0);
		const [older] = sessionFilesUnder(cli.agentDir);
		expect(cli.settle(["--faux", "-p", "NEWER-SESSION-QUESTION"]).code).toBe(0);
		const newer = sessionFilesUnder(cli.agentDir).find((file) => file !== older)!;
		expect(newer).toBeDefined();

		const server = new RpcClient(["--faux", "--session", older!], { cwd: cli.project, agentDir: cli.agentDir });
		const exportTo = async (id: string, name: string): Promise<string> => {
			const page = join(cli.project, name);
			expect(await server.request({ id, type: "export_html", outputPath: page })).toMatchObject({ success: true });
			return page;
		};
		const resumedPage = await exportTo("1", "resumed.html");
		expect(await server.request({ id: "2", type: "switch_session", sessionPath: newer })).toMatchObject({
			success: true,
		});
		const switchedPage = await exportTo("3", "switched.html");
		expect(await server.request({ id: "4", type: "new_session" })).toMatchObject({ success: true });
		await server.promptAndSettle("FRESH-SESSION-QUESTION", "5");
		const freshPage = await exportTo("6", "fresh.html");
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
		const fresh = sessionFilesUnder(cli.agentDir).find((file) => file !== older && file !== newer)!;

		const resumed = await shownOn(resumedPage);
		expect(resumed.facts).toContain(headerId(older!));
		expect(resumed.entries).toContain("OLDER-SESSION-QUESTION");
		expect(resumed.entries).not.toContain("NEWER-SESSION-QUESTION");

		const switched = await shownOn(switchedPage);
		expect(switched.facts).toContain(headerId(newer));
		expect(switched.entries).toContain("NEWER-SESSION-QUESTION");
		expect(switched.entries).not.toContain("OLDER-SESSION-QUESTION");

		const started = await shownOn(freshPage);
		expect(started.facts).toContain(headerId(fresh));
		expect(started.entries).toContain("FRESH-SESSION-QUESTION");
		expect(started.entries).not.toContain("NEWER-SESSION-QUESTION");
		expect(started.entries).not.toContain("OLDER-SESSION-QUESTION");
	}, 120_000);
});
