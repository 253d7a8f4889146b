/**
 * vercel/ai#4936: Azure OpenAI (and local servers: llama.cpp, Ollama) gave tool calls of different
 * turns the same id; the chat paired each result with its call by id alone, so a call was shown
 * with another call's result, or none. pi 0.73.1's export page pairs by id over the whole session
 * (`findToolResult`: the first result with that id), Settle's page did over the path (the last).
 *
 * Replayed against Settle: a real `settle -p` whose model, a local server speaking OpenAI's chat
 * completions, calls `bash` with the id `call_0` in two turns; `settle --export` writes the page,
 * opened in real headless Chromium. What the user should see: each command with its own output.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-export-call-ids-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

describe("vercel/ai#4936: the exported page when a provider reuses a tool call id in later turns", () => {
	it("vercel/ai#4936: two turns' `bash` calls both with the id call_0: each shows its own command's output, no result stands alone", async () => {
		server = await startWireServer();
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const bash = (command: string) =>
			chatReply([{ type: "tool_call", id: "call_0", name: "bash", arguments: { command } }], {
				finishReason: "tool_calls",
			});
		server.reply(bash("echo FIRST-OUTPUT"), bash("echo SECOND-OUTPUT"), chatReply([{ type: "text", text: "Done." }]));
		const run = await runSettleAsync(["--model", "local/coder", "-p", "run both commands"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(server.pending()).toBe(0);

		const [file] = sessionFilesUnder(cli.agentDir);
		const page = join(cli.project, "page.html");
		expect(cli.settle(["--export", file!, page]).code).toBe(0);
		const tools = await onExportedPage(page, (tab) => tab.locator("#entries .tool").allInnerTexts());
		expect(tools).toHaveLength(2);
		expect(tools[0]).toContain("$ echo FIRST-OUTPUT");
		expect(tools[0]).toMatch(/^FIRST-OUTPUT$/m);
		expect(tools[0]).not.toContain("SECOND-OUTPUT");
		expect(tools[1]).toContain("$ echo SECOND-OUTPUT");
		expect(tools[1]).toMatch(/^SECOND-OUTPUT$/m);
		expect(tools[1]).not.toContain("FIRST-OUTPUT");
	}, 60_000);
});
