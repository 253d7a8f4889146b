/**
 * opencode#830: the shared page of a session did not show "Request was aborted": the chat showed
 * the stopped answer as stopped, the page showed it as if it had ended, and a reader could not tell
 * the run was cut short. Replayed with a real `settle --rpc` on a local OpenAI-style server that
 * streams half an answer and hangs: the host aborts, then `export_html`. What a reader of the page
 * should see: the half answer, marked aborted, and the answer that followed. Real headless Chromium.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { onExportedPage } from "../inspect/chromium.js";
import { chatPartial, chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-export-aborted-");

describe("opencode#830: an aborted answer on the exported page", () => {
	it("opencode#830: settle --rpc: an answer aborted mid-stream is on the page as written so far and marked Aborted; the next answer is not", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			server.reply(
				chatPartial([{ type: "text", text: "HALF-ANSWER NEVER-SENT!" }], 2, "hang"),
				chatReply([{ type: "text", text: "SECOND-ANSWER done" }]),
			);
			const client = new RpcClient(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
			const streaming = client.next(
				(line) => line.type === "message_update" && JSON.stringify(line).includes("HALF-ANSWER"),
			);
			const aborted = client.next((line) => line.type === "agent_settled");
			client.send({ id: "1", type: "prompt", message: "FIRST-TASK" });
			await streaming;
			expect(await client.request({ id: "2", type: "abort" })).toMatchObject({ success: true });
			await aborted;
			const settled = client.next((line) => line.type === "agent_settled");
			await client.request({ id: "3", type: "prompt", message: "SECOND-TASK" });
			await settled;
			expect(await client.request({ id: "4", type: "export_html", outputPath: "page.html" })).toMatchObject({
				success: true,
			});
			expect(await client.end()).toBe(0);

			const blocks = await onExportedPage(join(cli.project, "page.html"), async (tab) => {
				await tab.locator("#entries").getByText("SECOND-ANSWER done").waitFor();
				return tab.locator("#entries > *").allInnerTexts();
			});
			const half = blocks.find((text) => text.includes("HALF-ANSWER"));
			expect(half).toBeDefined();
			expect(half).not.toContain("NEVER-SENT");
			expect(half).toMatch(/Aborted/);
			const second = blocks.find((text) => text.includes("SECOND-ANSWER done"));
			expect(second).not.toMatch(/Aborted/);
		} finally {
			await server.close();
		}
	}, 90_000);
});
