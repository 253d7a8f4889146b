/**
 * A report against another agent built for editors, replayed against a real `settle --rpc` child
 * process and real shells. getsigit/sigit#71 (sigit-si#54): in its stdio protocol mode the agent's
 * stdin is the host's command pipe, and the shell commands it ran inherited it; a command that read
 * stdin (`git commit` at a signing passphrase prompt) blocked, and read the host's next requests out
 * of the pipe: the agent never saw them and the editor waited for good. What the host should see: a
 * command that reads stdin gets end-of-file at once (the model's bash tool and the RPC `bash`
 * command alike), and every command the host sends meanwhile is answered.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";
import { fileEntries } from "./helpers.js";

const cli = useCliProject("settle-pi-races-rpc-stdin-children-");

/** Prints whether a line could be read from stdin, and which. */
const READS_STDIN = `echo started; if read -r line; then echo "read:[$line]"; else echo "stdin:eof"; fi`;

describe("getsigit/sigit#71: shell commands inherit the protocol's stdin and eat the host's requests", () => {
	it("getsigit/sigit#71: settle --rpc: the model's bash tool reading stdin gets end-of-file; a get_state sent while it runs is answered; the file holds the tool's output", async () => {
		const script = join(cli.dir, "script.json");
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: READS_STDIN } }] }, "the tool is done"]),
		);
		const client = new RpcClient(["--faux-script", script], { cwd: cli.project, agentDir: cli.agentDir });
		const toolStarted = client.next((line) => line.type === "tool_execution_start");
		const settled = client.next((line) => line.type === "agent_settled");
		client.send({ id: "p", type: "prompt", message: "commit it" });
		await toolStarted;
		// Written while the tool may still be waiting on stdin: it is the server's to read.
		const state = await client.request({ id: "state", type: "get_state" });
		expect(state).toMatchObject({ success: true });
		await settled;
		const toolEnd = client.lines.find((line) => line.type === "tool_execution_end") as {
			result: { content: { type: string; text: string }[] };
		};
		expect(toolEnd.result.content).toEqual([{ type: "text", text: "started\nstdin:eof\n" }]);
		const { data } = (await client.request({ id: "file", type: "get_state" })) as { data: { sessionFile: string } };
		expect(await client.end()).toBe(0);
		const results = fileEntries(data.sessionFile)
			.map((entry) => entry.message)
			.filter((message) => message?.role === "toolResult");
		expect(results).toMatchObject([{ content: [{ type: "text", text: "started\nstdin:eof\n" }] }]);
		expect(client.lines.filter((line) => line.type === "response").map((line) => line.id)).toEqual([
			"p",
			"state",
			"file",
		]);
	});

	it("getsigit/sigit#71: settle --rpc: a bash command reading stdin gets end-of-file; the command written right behind it is answered, not read by the shell", async () => {
		const client = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const bash = client.next((line) => line.type === "response" && line.id === "bash");
		const state = client.next((line) => line.type === "response" && line.id === "state");
		client.child.stdin.write(
			[
				{ id: "bash", type: "bash", command: READS_STDIN },
				{ id: "state", type: "get_state" },
			]
				.map((command) => `${JSON.stringify(command)}\n`)
				.join(""),
		);
		expect(await bash).toMatchObject({ success: true, data: { output: "started\nstdin:eof\n", exitCode: 0 } });
		expect(await state).toMatchObject({ success: true });
		expect(await client.end()).toBe(0);
	});
});
