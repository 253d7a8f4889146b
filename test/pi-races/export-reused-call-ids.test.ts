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
import { describe, expect, it } from "vitest";
import { onExportedPage } from "../inspect/chromium.js";
import { chatReply } from "../llm/wire/openai.js";
import { useExportReplay } from "./exported-page.js";

const { serve, printAndExport } = useExportReplay("settle-export-call-ids-");

describe("vercel/ai#4936: the exported page when a provider reuses a tool call id in later turns", () => {
	it("vercel/ai#4936: two turns' `bash` calls both with the id call_0: each shows its own command's output, no result stands alone", async () => {
		const server = await serve();
		const bash = (command: string) =>
			chatReply([{ type: "tool_call", id: "call_0", name: "bash", arguments: { command } }], {
				finishReason: "tool_calls",
			});
		server.reply(bash("echo FIRST-OUTPUT"), bash("echo SECOND-OUTPUT"), chatReply([{ type: "text", text: "Done." }]));
		const page = await printAndExport("run both commands");
		expect(server.pending()).toBe(0);
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
