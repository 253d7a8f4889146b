/**
 * pi's report about the output of the RPC `bash` command, replayed against a real `settle --rpc`
 * child process and real shells: pi#6703 asked for the output to stream (an Emacs client showed
 * nothing until the command ended), and its fix (pi PR 6971) tags each `bash_execution_update` with
 * the command's request id, "necessary to handle parallel bash execution on the client side". Settle
 * streamed the deltas without the id: with two `bash` commands running side by side a host could not
 * tell whose output a delta was. What the host should see: every delta under its command's id, the
 * deltas of one id adding up to that command's output.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-bash-");

describe("pi#6703: the RPC bash command's streamed output cannot be told apart", () => {
	it("pi#6703: settle --rpc: two bash commands running side by side stream their output under their own request ids; each id's deltas add up to its response's output", async () => {
		const client = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		// "first" prints, then waits for "second" to have printed: the two outputs interleave.
		const marker = join(cli.project, "second-started");
		const first = client.next((line) => line.type === "response" && line.id === "first");
		const second = client.next((line) => line.type === "response" && line.id === "second");
		client.child.stdin.write(
			[
				{
					id: "first",
					type: "bash",
					command: `echo first-a; until [ -e ${marker} ]; do sleep 0.01; done; echo first-b`,
				},
				{ id: "second", type: "bash", command: `echo second-a; touch ${marker}; echo second-b` },
			]
				.map((command) => `${JSON.stringify(command)}\n`)
				.join(""),
		);
		const answers = { first: await first, second: await second };
		expect(existsSync(marker)).toBe(true);
		expect(answers.first).toMatchObject({ success: true, data: { output: "first-a\nfirst-b\n", exitCode: 0 } });
		expect(answers.second).toMatchObject({ success: true, data: { output: "second-a\nsecond-b\n", exitCode: 0 } });
		const updates = client.lines.filter((line) => line.type === "bash_execution_update");
		expect(updates.map((update) => update.id).every((id) => id === "first" || id === "second")).toBe(true);
		for (const id of ["first", "second"] as const) {
			const streamed = updates
				.filter((update) => update.id === id)
				.map((update) => update.delta)
				.join("");
			expect(streamed).toBe((answers[id].data as { output: string }).output);
		}
		expect(await client.end()).toBe(0);
	});

	it("pi#6703: settle --rpc: a bash command sent without an id streams its output without one, as pi's server does", async () => {
		const client = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const answer = client.next((line) => line.type === "response" && line.command === "bash");
		client.send({ type: "bash", command: "echo untagged" });
		expect(await answer).toMatchObject({ success: true, data: { output: "untagged\n" } });
		expect(await client.end()).toBe(0);
		const updates = client.lines.filter((line) => line.type === "bash_execution_update");
		expect(updates).toEqual([{ type: "bash_execution_update", delta: "untagged\n" }]);
	});
});
