/**
 * hapi#1379, replayed: HAPI started `pi --mode rpc`, sent `get_state` without waiting and then its
 * prompt; the `get_state` answer was not ordered against the run's events, so a snapshot saying
 * `isStreaming: false` arrived after `agent_start` and flipped the session back to idle in the
 * list while it ran. What a client reading stdout in order should see: every `get_state` answer
 * agrees with the events before it — `isStreaming: true` between `agent_start` and `agent_end`,
 * `false` before the prompt's response and after `agent_settled`. Against a real `settle --rpc` on
 * a local OpenAI-compatible server, with `get_state` written in the same chunk as the prompt,
 * while the answer streams, and once the run has settled.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-rpc-state-order-");

const line = (command: Record<string, unknown>) => `${JSON.stringify(command)}\n`;

/** HAPI's start-up in one chunk: a get_state nobody waits for, the prompt, two more get_state. */
const HAPI_START =
	line({ id: "s0", type: "get_state" }) +
	line({ id: "p", type: "prompt", message: "write the report" }) +
	line({ id: "s1", type: "get_state" }) +
	line({ id: "s2", type: "get_state" });

/**
 * The `get_state` answers by id, each checked against the events before it on stdout:
 * `isStreaming` true between `agent_start` and `agent_end`, false before the prompt's response and
 * after `agent_settled`.
 */
function getStateAnswersInOrder(lines: readonly Record<string, unknown>[]): Record<string, boolean> {
	const seen = { promptAnswered: false, started: false, ended: false, settled: false };
	const answers: Record<string, boolean> = {};
	for (const event of lines) {
		if (event.type === "response" && event.command === "get_state") {
			const isStreaming = (event.data as { isStreaming: boolean }).isStreaming;
			answers[event.id as string] = isStreaming;
			const where = `${event.id} after ${JSON.stringify(seen)}`;
			if (seen.started && !seen.ended) expect(isStreaming, where).toBe(true);
			if (!seen.promptAnswered || seen.settled) expect(isStreaming, where).toBe(false);
		}
		if (event.type === "response" && event.id === "p") seen.promptAnswered = true;
		if (event.type === "agent_start") seen.started = true;
		if (event.type === "agent_end") seen.ended = true;
		if (event.type === "agent_settled") seen.settled = true;
	}
	return answers;
}

describe("hapi#1379: a get_state answer said isStreaming: false after agent_start", () => {
	it("hapi#1379: settle --rpc: get_state written before, with and during the prompt's run, and after it: each answer agrees with the events before it on stdout", async () => {
		const server = await startWireServer();
		try {
			writeLocalProvider(cli.agentDir, `${server.url}/v1`);
			server.reply(chatReply([{ type: "text", text: "the long report, streamed in parts" }]));
			const client = new RpcClient(["--model", "local/coder", "--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			const streaming = client.next((event) => event.type === "message_update");
			const settled = client.next((event) => event.type === "agent_settled");
			// HAPI's start-up: a get_state nobody waits for, then the prompt, in one chunk.
			client.child.stdin.write(HAPI_START);
			await streaming;
			client.child.stdin.write(line({ id: "s3", type: "get_state" }));
			await settled;
			const after = client.next((event) => event.id === "s4");
			client.child.stdin.write(line({ id: "s4", type: "get_state" }));
			await after;
			expect(await client.end()).toBe(0);

			const answers = getStateAnswersInOrder(client.lines);
			// Each was answered once; after the run, idle.
			expect(Object.keys(answers).sort()).toEqual(["s0", "s1", "s2", "s3", "s4"]);
			expect(answers.s4).toBe(false);
		} finally {
			await server.close();
		}
	});
});

describe("hapi#1379 (pi-peer)", () => {
	it("hapi#1379 (pi-peer): pi 0.73.1 on the same chunk answers the three get_state before agent_start, each false: consistent (the report is against a later pi)", async () => {
		const dirs = {
			cwd: join(cli.dir, "pi", "cwd"),
			agent: join(cli.dir, "pi", "agent"),
			sessions: join(cli.dir, "pi", "s"),
		};
		for (const path of Object.values(dirs)) mkdirSync(path, { recursive: true });
		const repliesFile = join(cli.dir, "pi", "replies.json");
		writeFileSync(repliesFile, JSON.stringify(["the long report, streamed in parts"]));
		const client = new RpcClient([], {
			cwd: dirs.cwd,
			agentDir: dirs.agent,
			command: [join(ROOT, "test/cli/pi-rpc-peer.mjs"), dirs.cwd, dirs.agent, dirs.sessions, repliesFile],
		});
		const ended = client.next((event) => event.type === "agent_end");
		client.child.stdin.write(HAPI_START);
		await ended;
		await client.end();
		expect(getStateAnswersInOrder(client.lines)).toEqual({ s0: false, s1: false, s2: false });
		const types = client.lines.map((event) => event.id ?? event.type);
		expect(types.indexOf("s2")).toBeLessThan(types.indexOf("agent_start"));
	});
});
