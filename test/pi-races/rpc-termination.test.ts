/**
 * How a `settle --rpc` process ends for the supervisor that started it, replayed against real
 * `settle --rpc` child processes and a local OpenAI-style server. pi#9328: a supervisor sent
 * `pi --mode rpc` SIGTERM and got exit 143 with nothing more on stdout; it had to close stdin to get
 * the final state (the maintainers: no action). What a supervisor should see when it stops a run
 * with SIGTERM: the run aborted and reported (`agent_end`, `aborted`), every stdout line whole, the
 * partial answer saved in the session file, exit 143.
 *
 * pi#5143: a workflow spawned pi in RPC mode with an extension calling `ctx.shutdown()` on
 * `agent_end`, to end the process once control came back to the user; a retried error broke it
 * (the first `agent_end` came before the retry). What the host should see: an extension that waits
 * for `willRetry: false` ends the process after the retried answer, on its own, with stdin open.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, UserMessage } from "../../src/llm/types.js";
import { RpcClient, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatPartial } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-rpc-termination-");

function savedMessages(file: string): (UserMessage | AssistantMessage)[] {
	return readFileSync(file, "utf8")
		.trimEnd()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string; message?: AgentMessage })
		.filter((entry) => entry.type === "message" && entry.message!.role !== "system")
		.map((entry) => entry.message as UserMessage | AssistantMessage);
}

describe("pi#9328: an RPC server sent SIGTERM exits with nothing more said", () => {
	const server = useWireServer();

	it("pi#9328: settle --rpc sent SIGTERM while the answer streams (stdin still open): agent_end (aborted) then agent_settled last on stdout, every line whole, the partial answer saved as aborted, exit 143", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// The answer streams in full, then the stream stays open: the run is mid-answer for good.
		server.reply(chatPartial([{ type: "text", text: "Half of the plan" }], 3, "hang"));
		const sessionFile = join(cli.project, "supervised.jsonl");
		// RpcClient parses every stdout line as JSON: a cut line fails the test there.
		const client = new RpcClient(["--model", "local/coder", "--session", sessionFile], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const streamed = client.next(
			(line) =>
				line.type === "message_update" &&
				JSON.stringify((line as { message?: unknown }).message).includes("Half of the plan"),
		);
		expect(await client.request({ id: "p", type: "prompt", message: "plan the migration" })).toMatchObject({
			success: true,
		});
		await streamed;
		client.child.kill("SIGTERM");
		expect(await client.exited).toBe(143);
		const types = client.lines.map((line) => line.type);
		expect(types.slice(-2)).toEqual(["agent_end", "agent_settled"]);
		expect(client.lines.at(-2)).toMatchObject({ aborted: true });
		const saved = savedMessages(sessionFile);
		expect(saved.map((message) => [message.role, message.content])).toEqual([
			["user", [{ type: "text", text: "plan the migration" }]],
			["assistant", [{ type: "text", text: "Half of the plan" }]],
		]);
		expect((saved[1] as AssistantMessage).stopReason).toBe("aborted");
	});
});

/** Ends the process once the agent is done for good, as pi#5143's extension meant to. */
const SHUTDOWN_WHEN_DONE = `export default function (pi) {
	pi.on("agent_end", (event, ctx) => {
		if (!event.willRetry) ctx.shutdown();
	});
}
`;

/** A guard against a hang only: a server still running then failed the test. */
const HANG_GUARD_MS = 30_000;

describe("pi#5143: an RPC host cannot have the process end once control is back with the user", () => {
	it("pi#5143: settle --rpc -e <ctx.shutdown() on agent_end unless willRetry>, stdin kept open: an overloaded answer is retried, the retried answer arrives, agent_settled is stdout's last line, and the process exits 0 by itself", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1, maxRetries: 2 } }));
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([
				{ stopReason: "error", errorMessage: "503 The server is overloaded. Please try again later." },
				"answered after the retry",
			]),
		);
		const extension = join(cli.dir, "shutdown-when-done.mjs");
		writeFileSync(extension, SHUTDOWN_WHEN_DONE);
		const client = new RpcClient(["--faux-script", script, "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const response = await client.request({ id: "p", type: "prompt", message: "go" });
		expect(response).toMatchObject({ success: true });
		// stdin stays open: only the extension's shutdown can end the process.
		let guard: ReturnType<typeof setTimeout> | undefined;
		const code = await Promise.race([
			client.exited,
			new Promise<string>((resolve) => {
				guard = setTimeout(() => resolve("still running"), HANG_GUARD_MS);
			}),
		]);
		clearTimeout(guard);
		if (code === "still running") client.child.kill("SIGKILL");
		expect(code).toBe(0);
		const types = client.lines.map((line) => line.type);
		expect(types.filter((type) => type === "auto_retry_start")).toHaveLength(1);
		expect(client.lines.filter((line) => line.type === "agent_end").map((line) => line.willRetry)).toEqual([
			true,
			false,
		]);
		const answer = client.lines.findLast((line) => line.type === "message_end")?.message as AssistantMessage;
		expect(answer.content).toEqual([{ type: "text", text: "answered after the retry" }]);
		expect(types.at(-1)).toBe("agent_settled");
	}, 60_000);
});
