/**
 * pi-lens#2890, replayed against a real `settle --rpc` child process: in RPC mode pi 0.85.1 fired
 * `session_start` twice, about 57 ms apart, for each new / resume / fork replacement, so an
 * extension whose handler is not idempotent (a telemetry opener, a tool-set restore) ran its
 * start-up twice. What the extension should see: exactly one `session_start` per session it is
 * loaded into, after the old session's one `session_shutdown`, naming the session file that
 * `get_state` then reports. pi#6186: under `--mode rpc` an extension command's `ctx.newSession()`
 * resolved `{ cancelled: false }` and did nothing (the handler was bound in interactive mode only),
 * so an extension had no way to reset the conversation. What it should see: a new session, with the
 * same lifecycle as the `new_session` command.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { LIFECYCLE_LOG } from "./helpers.js";

const cli = useCliProject("settle-pi-races-rpc-session-events-");

/** A `settle --rpc --faux -e <extension>` child and the requests both scenarios make of it. */
function rpcWithExtension(extension: string) {
	const client = new RpcClient(["--faux", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
	let id = 0;
	const request = (command: Record<string, unknown>) => client.request({ id: String(++id), ...command });
	const sessionFile = async () =>
		((await request({ type: "get_state" })) as { data: { sessionFile: string } }).data.sessionFile;
	/** Prompts and waits for the operation to settle. */
	const ask = async (message: string) => {
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await request({ type: "prompt", message })).toMatchObject({ success: true });
		await settled;
	};
	return { client, request, sessionFile, ask };
}

describe("pi-lens#2890: pi RPC mode fires session_start twice per session replacement", () => {
	it("pi-lens#2890: settle --rpc: new_session, switch_session, fork and clone each give one session_shutdown of the old session, then one session_start naming the file get_state reports", async () => {
		const log = join(cli.dir, "lifecycle.log");
		writeFileSync(log, "");
		const extension = join(cli.dir, "lifecycle.mjs");
		writeFileSync(extension, LIFECYCLE_LOG(log));
		const { client, request, sessionFile, ask } = rpcWithExtension(extension);

		await ask("hello");
		const first = await sessionFile();
		expect(await request({ type: "new_session" })).toMatchObject({ success: true });
		const second = await sessionFile();
		await ask("in the second session");
		expect(await request({ type: "switch_session", sessionPath: first })).toMatchObject({ success: true });
		expect(await sessionFile()).toBe(first);
		const forkable = (await request({ type: "get_fork_messages" })) as { data: { messages: { entryId: string }[] } };
		expect(await request({ type: "fork", entryId: forkable.data.messages[0]!.entryId })).toMatchObject({
			success: true,
		});
		const forked = await sessionFile();
		await ask("in the fork");
		expect(await request({ type: "clone" })).toMatchObject({ success: true });
		const cloned = await sessionFile();
		expect(await client.end()).toBe(0);

		const [a, b, c, d] = [first, second, forked, cloned].map((file) => basename(file));
		expect(new Set([a, b, c, d]).size).toBe(4);
		expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual([
			`start startup ${a}`,
			`shutdown new ${a}`,
			`start new ${b}`,
			`shutdown resume ${b}`,
			`start resume ${a}`,
			`shutdown fork ${a}`,
			`start fork ${c}`,
			`shutdown fork ${c}`,
			`start fork ${d}`,
			`shutdown quit ${d}`,
		]);
		expect(client.lines.filter((line) => line.type === "extension_error")).toEqual([]);
		expect(client.stderr).toBe("");
	});
});

describe("pi#6186: ctx.newSession() from an extension command is a silent no-op under --mode rpc", () => {
	it("pi#6186: settle --rpc: a /reset command calling ctx.newSession() replaces the session: the old one's session_shutdown{new}, one session_start{new}, get_state names the new file, and the next prompt is saved there", async () => {
		const log = join(cli.dir, "lifecycle.log");
		writeFileSync(log, "");
		const extension = join(cli.dir, "lifecycle.mjs");
		const reset = `
	pi.registerCommand("reset", {
		description: "start over",
		handler: async (_args, ctx) => {
			const result = await ctx.newSession();
			write("reset cancelled=" + result.cancelled);
		},
	});
}`;
		writeFileSync(extension, LIFECYCLE_LOG(log).replace(/\n}\n$/, reset));
		const { client, request, sessionFile, ask } = rpcWithExtension(extension);

		await ask("before the reset");
		const first = await sessionFile();
		// The command's response comes once its handler has returned.
		expect(await request({ type: "prompt", message: "/reset" })).toMatchObject({
			success: true,
			data: { disposition: "handled" },
		});
		const second = await sessionFile();
		expect(second).not.toBe(first);
		await ask("after the reset");
		expect(await client.end()).toBe(0);

		const [a, b] = [first, second].map((file) => basename(file));
		expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual([
			`start startup ${a}`,
			`shutdown new ${a}`,
			`start new ${b}`,
			"reset cancelled=false",
			`shutdown quit ${b}`,
		]);
		const texts = (file: string) =>
			readFileSync(file, "utf8")
				.split("\n")
				.filter(Boolean)
				.map((line) => JSON.parse(line) as { message?: { role: string; content: unknown } })
				.filter((entry) => entry.message?.role === "user")
				.map((entry) => JSON.stringify(entry.message!.content));
		expect(texts(first).join()).toContain("before the reset");
		expect(texts(first).join()).not.toContain("after the reset");
		expect(texts(second).join()).toContain("after the reset");
		expect(client.lines.filter((line) => line.type === "extension_error")).toEqual([]);
		expect(client.stderr).toBe("");
	});
});
