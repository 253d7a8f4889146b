/**
 * pi#1280: an extension redacting secrets (a `.env` file's values) from tool results before they
 * reach a hosted model, loaded with another extension that also rewrites `tool_result`: only the
 * last handler's return was used, built from the original result, so the redaction was silently
 * undone and the secret sent.
 *
 * Replayed with a real `settle -p`: two extension files on disk, the built-in bash tool reading
 * `.env`, a local Chat Completions server recording what the model was sent.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { writeExtension } from "./helpers.js";

const cli = useCliProject("settle-tool-result-chain-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

const REDACT = `
pi.on("tool_result", (event) => ({
	content: event.content.map((block) =>
		block.type === "text" ? { ...block, text: block.text.replace(/(SECRET=)\\S+/g, "$1[redacted]") } : block,
	),
}));`;

const FOOTER = `
pi.on("tool_result", (event) => ({ content: [...event.content, { type: "text", text: "[checked by footer]" }] }));`;

type Sent = { role: string; content?: unknown };

describe("pi#1280: two extensions rewrite the same tool result", () => {
	it("pi#1280: the later handler gets the earlier one's redacted result: the model and the session file get the redaction and the footer, never the secret", async () => {
		server = await startWireServer();
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(join(cli.project, ".env"), "SECRET=hunter2\nPORT=8080\n");
		const redact = writeExtension(cli.dir, "redact.mjs", REDACT);
		const footer = writeExtension(cli.dir, "footer.mjs", FOOTER);
		server.reply(
			chatReply([{ type: "tool_call", id: "call_env", name: "bash", arguments: { command: "cat .env" } }], {
				model: "coder",
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "PORT is 8080." }], { model: "coder" }),
		);
		const sessions = join(cli.dir, "sessions");
		const run = await runSettleAsync(
			["--session-dir", sessions, "--model", "local/coder", "-e", redact, "-e", footer, "-p", "which port?"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("PORT is 8080.\n");
		const tool = (server.requests[1]!.body as { messages: Sent[] }).messages.find((m) => m.role === "tool");
		const sent = JSON.stringify(tool?.content);
		expect(sent).toContain("SECRET=[redacted]");
		expect(sent).toContain("PORT=8080");
		expect(sent).toContain("[checked by footer]");
		expect(sent).not.toContain("hunter2");
		const [file] = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((name) =>
			name.endsWith(".jsonl"),
		);
		const saved = readFileSync(join(sessions, file!), "utf8");
		expect(saved).toContain("SECRET=[redacted]");
		expect(saved).toContain("[checked by footer]");
		expect(saved).not.toContain("hunter2");
	});
});
