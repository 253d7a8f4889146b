/**
 * `settle --rpc` and pi 0.73.1's own RPC mode (`runRpcMode`, on pi-ai's faux provider) driven with
 * the same command lines as real child processes: the responses must agree (success, error text,
 * the data a host reads). Settle's documented differences are left out where they show: transcript
 * `system` messages, `get_state`'s extra `cwd` / `lifecycle`, the `id` Settle keeps on an
 * unknown command's response, and the prompt response's `disposition`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, RpcClient, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-rpc-parity-");

type Line = Record<string, unknown>;

/** One peer's answers to the command sequence, normalized for comparison. */
async function drive(server: RpcClient): Promise<Line[]> {
	const answers: Line[] = [];
	const status = (response: Line) => ({ success: response.success, error: response.error, data: response.data });
	const ask = async (command: Line, pick: (response: Line) => unknown = (response) => response) => {
		const response = await server.request(command);
		answers.push({ command: command.type, answer: response.success ? pick(response) : status(response) });
	};
	const state = (response: Line) => {
		const data = response.data as Record<string, unknown> & { model: { provider: string; id: string } };
		const { thinkingLevel, isStreaming, isCompacting, steeringMode, followUpMode, autoCompactionEnabled } = data;
		return {
			model: `${data.model.provider}/${data.model.id}`,
			thinkingLevel,
			isStreaming,
			isCompacting,
			steeringMode,
			followUpMode,
			autoCompactionEnabled,
			pendingMessageCount: data.pendingMessageCount,
			sessionName: data.sessionName,
		};
	};

	await ask({ id: "1", type: "get_state" }, state);
	const ended = server.next((line) => line.type === "agent_end");
	// Settle's prompt response says how the prompt was taken (`data: { disposition }`); pi's has no data.
	await ask({ id: "2", type: "prompt", message: "What is in this folder?" }, (response) => ({
		...status(response),
		data: undefined,
	}));
	await ended;
	await ask({ id: "3", type: "get_last_assistant_text" }, status);
	await ask({ id: "4", type: "get_fork_messages" }, (response) =>
		(response.data as { messages: { text: string }[] }).messages.map((m) => m.text),
	);
	await ask({ id: "5", type: "set_session_name", name: "   " }, status);
	await ask({ id: "6", type: "set_session_name", name: " audit " }, status);
	await ask({ id: "7", type: "steer", message: "later" }, status);
	await ask({ id: "8", type: "follow_up", message: "after that" }, status);
	await ask({ id: "9", type: "set_steering_mode", mode: "all" }, status);
	await ask({ id: "10", type: "set_auto_retry", enabled: false }, status);
	await ask({ id: "11", type: "set_auto_compaction", enabled: false }, status);
	await ask({ id: "12", type: "get_state" }, state);
	await ask({ id: "13", type: "abort" }, status);
	await ask({ id: "14", type: "abort_retry" }, status);
	await ask({ id: "15", type: "abort_bash" }, status);
	await ask({ id: "16", type: "cycle_thinking_level" }, status);
	await ask({ id: "17", type: "fork", entryId: "nope" }, status);
	await ask({ id: "18", type: "get_session_stats" }, (response) => {
		const { userMessages, assistantMessages, toolCalls, toolResults } = response.data as Record<string, number>;
		return { userMessages, assistantMessages, toolCalls, toolResults };
	});
	await ask({ id: "19", type: "get_messages" }, (response) =>
		(response.data as { messages: { role: string }[] }).messages.map((m) => m.role).filter((role) => role !== "system"),
	);
	await ask({ id: "20", type: "clone" }, status);
	await ask({ id: "21", type: "get_state" }, state);

	const parse = server.next((line) => line.type === "response" && line.command === "parse");
	server.child.stdin.write("not json\n");
	answers.push({ command: "parse", answer: status(await parse) });
	const unknown = server.next((line) => line.type === "response" && line.command === "frobnicate");
	server.send({ id: "22", type: "frobnicate" });
	answers.push({ command: "frobnicate", answer: status(await unknown) });
	return answers;
}

describe("settle --rpc beside pi 0.73.1's RPC mode", () => {
	it("answers the same command lines the same way", async () => {
		const replies = join(cli.dir, "replies.json");
		writeFileSync(replies, JSON.stringify(["src/ and a README."]));
		const piDirs = {
			cwd: join(cli.dir, "pi-cwd"),
			agent: join(cli.dir, "pi-agent"),
			sessions: join(cli.dir, "pi-sessions"),
		};
		for (const path of Object.values(piDirs)) mkdirSync(path, { recursive: true });
		const pi = new RpcClient([], {
			cwd: piDirs.cwd,
			agentDir: piDirs.agent,
			command: [join(ROOT, "test/cli/pi-rpc-peer.mjs"), piDirs.cwd, piDirs.agent, piDirs.sessions, replies],
		});
		const script = join(cli.dir, "script.json");
		writeFileSync(script, JSON.stringify(["src/ and a README."]));
		const settle = new RpcClient(["--faux-script", script], { cwd: cli.project, agentDir: cli.agentDir });

		const [piAnswers, settleAnswers] = await Promise.all([drive(pi), drive(settle)]);
		// DELIBERATE_QUEUE_DISPOSITION (pi#9803; rpc-differential.helpers): Settle's steer / follow_up
		// answers say the message was queued; pi's carry no data.
		const queued = settleAnswers.filter((a) => a.command === "steer" || a.command === "follow_up");
		const answersOf = (lines: Line[]) => lines.map((a) => a.answer as Line);
		expect(answersOf(queued).map((answer) => answer.data)).toEqual([
			{ disposition: "queued" },
			{ disposition: "queued" },
		]);
		for (const a of queued) a.answer = { ...(a.answer as Line), data: undefined };
		expect(settleAnswers).toEqual(piAnswers);
		// Spot checks, so that two equally broken peers cannot pass.
		expect(piAnswers.find((a) => a.command === "get_last_assistant_text")).toMatchObject({
			answer: { data: { text: "src/ and a README." } },
		});
		expect(piAnswers.find((a) => a.command === "frobnicate")).toMatchObject({
			answer: { success: false, error: "Unknown command: frobnicate" },
		});
		pi.child.stdin.end();
		expect(await pi.exited).toBe(0);
		expect(await settle.end()).toBe(0);
	});
});
