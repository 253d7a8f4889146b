/**
 * huggingface/tau#694, positron#7312: after logging out of a provider, the session kept its model on
 * the removed provider (still shown, still picked). In Settle an extension's logout is
 * `pi.unregisterProvider()`: the next request to the session's model then went through another
 * provider's client with no key and failed "No API key for provider: relay", which sent the user
 * looking for a key. What the user should see: a request already streaming finishes (its answer is
 * kept); the next request says the model's provider was unregistered and what to do; nothing already
 * written is lost, and once the provider is registered again the session goes on with it.
 *
 * pi 0.73.1 answers the same way (its own CLI, run on the same extension, is asserted below).
 *
 * Replayed with a real `settle -p`, a real extension file registering an OpenAI-compatible provider
 * at a local server reached through pi-ai's client, and the session's JSONL on disk.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettleAsync, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { runPiOwnCli } from "../cli/pi-diff-process.js";
import { chatReply } from "../llm/wire/openai.js";
import type { Reply } from "../llm/wire/server.js";
import { useWireServer } from "../llm/wire/server.js";
import { sessionFilesUnder } from "./helpers.js";

const cli = useCliProject("settle-provider-unregistered-");
const server = useWireServer();

const MODEL = `{ id: "m", name: "m", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }`;

/** An extension registering provider `relay` at the local server, with `logout` (a tool) and a gate-file logout. */
function relayExtension(
	options: { logoutTool?: boolean; logoutCommand?: boolean; gate?: string; log?: string } = {},
): string {
	const path = join(cli.dir, "relay.mjs");
	writeFileSync(
		path,
		`import { appendFileSync, existsSync } from "node:fs";
export default function (pi) {
	pi.registerProvider("relay", { baseUrl: ${JSON.stringify(`${server.url}/v1`)}, apiKey: "relay-key", api: "openai-completions", models: [${MODEL}] });
	${
		options.logoutTool
			? `pi.registerTool({ name: "logout", label: "logout", description: "Logs out of relay", parameters: { type: "object", properties: {} },
		execute: async () => { pi.unregisterProvider("relay"); return { content: [{ type: "text", text: "logged out" }], details: {} }; } });`
			: ""
	}
	${options.logoutCommand ? `pi.registerCommand("logout", { handler: async () => pi.unregisterProvider("relay") });` : ""}
	${
		options.gate && options.log
			? `const timer = setInterval(() => {
		if (!existsSync(${JSON.stringify(options.gate)})) return;
		clearInterval(timer);
		pi.unregisterProvider("relay");
		appendFileSync(${JSON.stringify(options.log)}, "unregistered\\n");
	}, 10);
	timer.unref();`
			: ""
	}
}
`,
	);
	return path;
}

describe("huggingface/tau#694, positron#7312: the session's provider unregistered while it runs", () => {
	it("tau#694: a tool logs out of the session's provider mid-run: the next request is refused naming the unregistration, the tool result is saved, and the provider registered again goes on", async () => {
		const sessionDir = join(cli.dir, "store", "sessions");
		server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "logout", arguments: {} }]),
			chatReply([{ type: "text", text: "back again" }]),
		);
		const run = await runSettleAsync(
			["--session-dir", sessionDir, "-e", relayExtension({ logoutTool: true }), "--model", "relay/m", "-p", "log out"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.stderr).toContain(
			'Model relay/m is no longer available: its provider "relay" was unregistered (pi.unregisterProvider). Pick another model (/model, --model) or register the provider again.',
		);
		expect(run.stderr).not.toContain("No API key");
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
		const [file] = sessionFilesUnder(join(cli.dir, "store"));
		expect(readFileSync(file!, "utf8")).toContain("logged out");

		// The next start registers relay again: the session goes on with it, its tool result sent.
		const resumed = await runSettleAsync(
			["--session-dir", sessionDir, "-e", relayExtension(), "--model", "relay/m", "-c", "-p", "again"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(resumed.stdout).toBe("back again\n");
		expect(resumed.code).toBe(0);
		const messages = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages;
		expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual([
			"logged out",
		]);
	});

	it('tau#694 on pi 0.73.1 (its own cli.js, same extension): the next request fails "No API key for provider: relay"', async () => {
		server.reply(chatReply([{ type: "tool_call", id: "call_1", name: "logout", arguments: {} }]));
		const run = await runPiOwnCli({ project: cli.project, home: cli.dir, piAgent: cli.agentDir }, [
			"--no-session",
			"-e",
			relayExtension({ logoutTool: true }),
			"--model",
			"relay/m",
			"-p",
			"log out",
		]);
		expect(run.stderr).toBe("No API key for provider: relay\n");
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});

	it("positron#7312: the provider unregistered while its request streams: that answer arrives and is printed", async () => {
		const gate = join(cli.dir, "gate");
		const log = join(cli.dir, "relay.log");
		const afterUnregister =
			(reply: Reply): Reply =>
			(request, res, req) => {
				writeFileSync(gate, "");
				const wait = () => {
					if (existsSync(log) && readFileSync(log, "utf8").includes("unregistered")) reply(request, res, req);
					else setTimeout(wait, 10);
				};
				wait();
			};
		server.reply(afterUnregister(chatReply([{ type: "text", text: "streamed before the logout" }])));
		const run = await runSettleAsync(
			["--no-session", "-e", relayExtension({ gate, log }), "--model", "relay/m", "-p", "hi"],
			{ cwd: cli.project, agentDir: cli.agentDir },
		);
		expect(run.stdout).toBe("streamed before the logout\n");
		expect(run.code).toBe(0);
	});

	it('tau#694 over RPC: after a /logout command, get_state keeps the model and says why it cannot be used; the next prompt is refused with that text (was: nothing, then "No API key found")', async () => {
		const rpc = new RpcClient(["--no-session", "-e", relayExtension({ logoutCommand: true }), "--model", "relay/m"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const reason =
			'Model relay/m is no longer available: its provider "relay" was unregistered (pi.unregisterProvider). Pick another model (/model, --model) or register the provider again.';
		const before = await rpc.request({ id: "1", type: "get_state" });
		expect((before.data as { modelUnavailable?: string }).modelUnavailable).toBeUndefined();
		expect(await rpc.request({ id: "2", type: "prompt", message: "/logout" })).toMatchObject({ success: true });
		// A command runs no agent run (no agent_settled): read the state until the handler has run.
		type State = { model?: { provider: string; id: string }; modelUnavailable?: string };
		let after: State = {};
		for (let attempt = 0; after.modelUnavailable === undefined && attempt < 200; attempt++) {
			after = (await rpc.request({ id: `3-${attempt}`, type: "get_state" })).data as State;
		}
		expect(after.model).toMatchObject({ provider: "relay", id: "m" });
		expect(after.modelUnavailable).toBe(reason);
		const refused = await rpc.request({ id: "4", type: "prompt", message: "hi" });
		expect(refused).toMatchObject({ success: false, error: reason });
		expect(server.requests).toHaveLength(0);
		expect(await rpc.end()).toBe(0);
	});

	it("tau#694 in settle -i: after /logout, /model still shows the model and says why it cannot be used (was: shown as the model, nothing more)", async () => {
		const chat = new Repl(["--no-session", "-e", relayExtension({ logoutCommand: true }), "--model", "relay/m"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await chat.idle(0);
		const before = await chat.say("/model");
		expect(before).toContain("Model: relay/m\n");
		expect(before).not.toContain("no longer available");
		await chat.say("/logout");
		const after = await chat.say("/model");
		expect(after).toContain("Model: relay/m\n");
		expect(after).toContain(
			'Model relay/m is no longer available: its provider "relay" was unregistered (pi.unregisterProvider). Pick another model (/model, --model) or register the provider again.',
		);
		chat.child.stdin.end();
		expect(await chat.exited).toBe(0);
	});
});
