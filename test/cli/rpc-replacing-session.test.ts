/**
 * `settle --rpc`: a prompt that arrives while an extension command is replacing the session (its
 * `session_before_switch` handler is still asking the host) is not refused with the session's
 * "being replaced" BUSY error: it waits for the replacement and runs on the session current then —
 * the new one, or the old one when the extension cancelled (pi runs it on the old one in both cases;
 * when the replacement goes through, pi's old session is disposed and the prompt is lost). A `bash`
 * command waits the same way.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-rpc-replacing-");

function serverWithRenewCommand(): RpcClient {
	const extension = join(cli.dir, "renew.ts");
	writeFileSync(
		extension,
		`export default function (pi) {
	pi.on("session_before_switch", async (_event, ctx) => {
		const ok = await ctx.ui.confirm("Switch?", "start a new session");
		return { cancel: !ok };
	});
	pi.registerCommand("renew", { handler: async (_args, ctx) => { await ctx.newSession(); } });
}
`,
	);
	return new RpcClient(["--faux", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
}

function userTexts(messages: { role: string; content: unknown }[]): string[] {
	return messages
		.filter((m) => m.role === "user")
		.map((m) =>
			typeof m.content === "string"
				? m.content
				: (m.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join(""),
		);
}

describe("settle --rpc: a prompt during an extension's session replacement", () => {
	for (const confirmed of [true, false]) {
		it(`runs on the ${confirmed ? "new" : "old (cancelled)"} session once the replacement is over`, async () => {
			const server = serverWithRenewCommand();
			const firstSettled = server.next((line) => line.type === "agent_settled");
			await server.request({ id: "0", type: "prompt", message: "first" });
			await firstSettled;
			const before = (await server.request({ id: "s0", type: "get_state" })).data as { sessionId: string };

			const asked = server.next((line) => line.type === "extension_ui_request" && line.method === "confirm");
			const renewed = server.next((line) => line.type === "response" && line.id === "1");
			server.send({ id: "1", type: "prompt", message: "/renew" });
			const question = await asked;
			// The old session is being replaced now: this prompt must wait, not fail.
			const during = server.next((line) => line.type === "response" && line.id === "2");
			const duringSettled = server.next((line) => line.type === "agent_settled");
			server.send({ id: "2", type: "prompt", message: "during the switch" });
			server.send({ type: "extension_ui_response", id: question.id, confirmed });
			expect(await renewed).toMatchObject({ success: true });
			expect(await during).toMatchObject({ command: "prompt", success: true });
			await duringSettled;

			const state = (await server.request({ id: "s1", type: "get_state" })).data as { sessionId: string };
			expect(state.sessionId === before.sessionId).toBe(!confirmed);
			const messages = (await server.request({ id: "m", type: "get_messages" })).data as {
				messages: { role: string; content: unknown }[];
			};
			expect(userTexts(messages.messages)).toEqual(confirmed ? ["during the switch"] : ["first", "during the switch"]);
			expect(await server.end()).toBe(0);
		});
	}

	it("a bash command waits too, and runs on the new session: not refused with BUSY", async () => {
		const server = serverWithRenewCommand();
		const asked = server.next((line) => line.type === "extension_ui_request" && line.method === "confirm");
		const renewed = server.next((line) => line.type === "response" && line.id === "1");
		server.send({ id: "1", type: "prompt", message: "/renew" });
		const question = await asked;
		const during = server.next((line) => line.type === "response" && line.id === "2");
		server.send({ id: "2", type: "bash", command: "echo during-the-switch" });
		server.send({ type: "extension_ui_response", id: question.id, confirmed: true });
		expect(await renewed).toMatchObject({ success: true });
		expect(await during).toMatchObject({ command: "bash", success: true, data: { output: "during-the-switch\n" } });
		const messages = (await server.request({ id: "m", type: "get_messages" })).data as {
			messages: { role: string; command?: string }[];
		};
		expect(messages.messages.filter((m) => m.role === "bashExecution").map((m) => m.command)).toEqual([
			"echo during-the-switch",
		]);
		expect(await server.end()).toBe(0);
	});
});
