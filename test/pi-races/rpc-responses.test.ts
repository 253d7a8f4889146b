/**
 * pi's reports about RPC responses, replayed against a real `settle --rpc` child process: a
 * `prompt` whose preflight fails (no model, no key) answered twice under one request id, once
 * `success: false` and once `success: true` (pi#3049). What the client should see: exactly one
 * `response` per request id, saying whether the prompt was accepted; nothing started for a refused one.
 * An unknown command type answered without the request id, so `RpcClient` waited 30 s (pi#5868).
 * get-bb/bb#1721 (a host driving pi): `/compact` on a session below `keepRecentTokens` was refused
 * "Nothing to compact (session too small)", and the host, reading it as a failed turn, put the
 * thread in an error state that refused the next message. What the client should see: the refusal
 * as the `compact` response alone, nothing written, and the session still taking prompts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-");

describe("pi#3049: an RPC prompt can get conflicting responses for the same request id", () => {
	const setups = [
		{
			how: "no model",
			args: [],
			error: /^No model selected\. .*set_model.*--faux/,
			stderr: /^Warning: No models available\./,
		},
		{
			how: "a model without a key",
			args: ["--model", "anthropic/claude-sonnet-4-5"],
			error: /^No API key found for anthropic\. .*ANTHROPIC_API_KEY.*set_model/,
			stderr: /^$/,
		},
	];
	for (const { how, args, error, stderr } of setups) {
		it(`pi#3049: settle --rpc with ${how}: each prompt id gets exactly one response, success: false naming what to do; no run starts; the server stays usable and exits 0`, async () => {
			// No key reaches the process, whatever the test's environment holds.
			const env = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_OAUTH_TOKEN: undefined };
			const client = new RpcClient(args, { cwd: cli.project, agentDir: cli.agentDir, env });
			// Two prompts back to back, then a state query, all in one write (read together by the server).
			client.child.stdin.write(
				[
					{ id: "b1", type: "prompt", message: "hi" },
					{ id: "b2", type: "prompt", message: "again", streamingBehavior: "followUp" },
					{ id: "s", type: "get_state" },
				]
					.map((command) => `${JSON.stringify(command)}\n`)
					.join(""),
			);
			const state = await client.next((line) => line.type === "response" && line.id === "s");
			expect(state).toMatchObject({ success: true, data: { isStreaming: false, messageCount: 0 } });
			// Close stdin: every line the server wrote is read before the exit code is known.
			expect(await client.end()).toBe(0);
			const responses = client.lines.filter((line) => line.type === "response");
			for (const id of ["b1", "b2"]) {
				const answers = responses.filter((line) => line.id === id);
				expect(answers).toHaveLength(1);
				expect(answers[0]).toMatchObject({ command: "prompt", success: false });
				expect(String(answers[0]!.error)).toMatch(error);
			}
			expect(responses.filter((line) => line.id === "s")).toHaveLength(1);
			expect(client.lines.some((line) => line.type === "agent_start" || line.type === "message_start")).toBe(false);
			expect(client.stderr).toMatch(stderr);
		});
	}
});

describe("pi#5868: an unknown RPC command is answered without its id", () => {
	it("pi#5868: settle --rpc: an unknown command type is refused under its own id (RpcClient can match it), and the server goes on answering", async () => {
		const client = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await client.request({ id: "test", type: "foobar" })).toEqual({
			id: "test",
			type: "response",
			command: "foobar",
			success: false,
			error: "Unknown command: foobar",
		});
		expect(await client.request({ id: "after", type: "get_state" })).toMatchObject({ id: "after", success: true });
		expect(await client.end()).toBe(0);
		expect(client.lines.filter((line) => line.type === "response").map((line) => line.id)).toEqual(["test", "after"]);
	});
});

describe("get-bb/bb#1721: /compact on a session too small to compact", () => {
	it("get-bb/bb#1721: settle --rpc: compact on a one-exchange session is answered success: false naming why, with one compaction_end carrying it; nothing is written and the next prompt runs and is saved", async () => {
		const client = new RpcClient(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		const ask = async (id: string, message: string) => {
			const settled = client.next((line) => line.type === "agent_settled");
			expect(await client.request({ id, type: "prompt", message })).toMatchObject({ success: true });
			await settled;
		};
		await ask("1", "one small exchange");
		const state = (await client.request({ id: "2", type: "get_state" })) as { data: { sessionFile: string } };
		const before = readFileSync(state.data.sessionFile, "utf8");

		expect(await client.request({ id: "3", type: "compact" })).toEqual({
			id: "3",
			type: "response",
			command: "compact",
			success: false,
			error: "Nothing to compact (session too small)",
		});
		expect(readFileSync(state.data.sessionFile, "utf8")).toBe(before);
		expect(client.lines.filter((line) => line.type === "compaction_end")).toEqual([
			{
				type: "compaction_end",
				reason: "manual",
				aborted: false,
				willRetry: false,
				errorMessage: "Compaction failed: Nothing to compact (session too small)",
			},
		]);
		const idle = (await client.request({ id: "4", type: "get_state" })) as {
			data: { isStreaming: boolean; isCompacting: boolean };
		};
		expect(idle.data).toMatchObject({ isStreaming: false, isCompacting: false });

		await ask("5", "the next message");
		expect(await client.end()).toBe(0);
		const users = readFileSync(state.data.sessionFile, "utf8")
			.split("\n")
			.filter((line) => line.includes('"role":"user"'));
		expect(users).toHaveLength(2);
		expect(users[1]).toContain("the next message");
		expect(client.stderr).toBe("");
	});
});
