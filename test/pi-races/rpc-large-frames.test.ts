/**
 * A report against a host of pi's RPC mode, replayed with `settle/rpc`'s RpcClient driving a real
 * `settle --rpc` child process that writes a real session file. eddiearc/larkin#128: the host's
 * client refused any JSON line over 1 MiB ("frame exceeds 1048576 bytes"), though pi sends such lines
 * whenever a message is big (an image inline as base64), so the runtime died and, recreated, died
 * again on the same line. What the host should see: a multi-megabyte line in either direction is
 * one command or one event like any other; the text arrives whole, in the events, in `get_messages`
 * and in the file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient, type RpcEvent } from "../../src/rpc/index.js";
import { cliCommand, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-large-frames-");

const clients: RpcClient[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map((client) => client.stop()));
});

/** The text blocks of a message, joined. */
function textOf(message: { content?: unknown }): string {
	if (typeof message.content === "string") return message.content;
	return (message.content as { type: string; text?: string }[])
		.map((block) => (block.type === "text" ? block.text : ""))
		.join("");
}

describe("eddiearc/larkin#128: RPC lines over 1 MiB rejected", () => {
	it("eddiearc/larkin#128: settle/rpc's RpcClient and settle --rpc: a 3 MB prompt line runs; its message_end event, get_messages and the session file hold the text whole", async () => {
		const script = join(cli.dir, "script.json");
		writeFileSync(script, JSON.stringify(["read it all"]));
		const client = new RpcClient({
			command: [process.execPath, ...cliCommand(), "--rpc"],
			cwd: cli.project,
			env: { SETTLE_AGENT_DIR: cli.agentDir },
			args: ["--faux-script", script],
		});
		clients.push(client);
		await client.start();
		// 3 MB of varied text: one stdin line and, echoed, stdout lines of over 1 MiB each.
		const big = Array.from({ length: 60_000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join(" ");
		expect(big.length).toBeGreaterThan(3_000_000);
		const events = await client.promptAndWait(big);

		const userEnd = events.find(
			(event): event is Extract<RpcEvent, { type: "message_end" }> =>
				event.type === "message_end" && (event as { message: { role: string } }).message.role === "user",
		);
		expect(textOf((userEnd as unknown as { message: { content: unknown } }).message)).toBe(big);
		const messages = (await client.getMessages()).filter((message) => message.role !== "system");
		expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(textOf(messages[0] as { content: unknown })).toBe(big);
		expect(textOf(messages[1] as { content: unknown })).toBe("read it all");

		const { sessionFile } = await client.getState();
		await client.stop();
		const saved = readFileSync(sessionFile!, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content?: unknown } })
			.filter((entry) => entry.message?.role === "user");
		expect(saved.map((entry) => textOf(entry.message!))).toEqual([big]);
	});
});
