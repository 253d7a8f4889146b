/**
 * Bug (found driving `settle --rpc` by hand): `new_session` sent during a retry's backoff or during a
 * manual `compact` disposed the old session without ending what it was doing. The host saw
 * `auto_retry_start` with no `auto_retry_end` and no `agent_settled` (a client waiting for the run to
 * settle waited for good), or `compaction_start` with no `compaction_end`, and `compact` failed with
 * "The AgentSession was disposed before this prompt settled.". A replacement now ends them as it ends
 * a run: their end events are streamed before `new_session` answers.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-rpc-replacement-ends-");

/** Types of the lines from the first one matching `from` on (responses as `response:<id>`). */
function linesFrom(server: RpcClient, from: (line: Record<string, unknown>) => boolean): string[] {
	const start = server.lines.findIndex(from);
	return server.lines
		.slice(start)
		.filter((line) => !String(line.type).startsWith("message_") && !String(line.type).startsWith("turn_"))
		.map((line) => (line.type === "response" ? `response:${line.id}` : String(line.type)));
}

describe("settle --rpc: new_session ends the old session's operation visibly", () => {
	it("during a retry's backoff: auto_retry_end and agent_settled come before new_session's answer", async () => {
		// A backoff far longer than the test: new_session always arrives during it.
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 600_000 } }));
		const script = join(cli.dir, "overloaded.json");
		writeFileSync(script, JSON.stringify([{ stopReason: "error", errorMessage: "529 overloaded" }, "retried"]));
		const server = new RpcClient(["--faux-script", script], { cwd: cli.project, agentDir: cli.agentDir });
		const retrying = server.next((line) => line.type === "auto_retry_start");
		await server.request({ id: "p", type: "prompt", message: "go" });
		await retrying;

		expect(await server.request({ id: "n", type: "new_session" })).toMatchObject({ success: true });
		expect(linesFrom(server, (line) => line.type === "auto_retry_start")).toEqual([
			"auto_retry_start",
			"entry_appended",
			"auto_retry_end",
			"agent_settled",
			"response:n",
		]);
		expect(server.lines.find((line) => line.type === "auto_retry_end")).toMatchObject({
			success: false,
			finalError: "Retry cancelled",
		});
		expect(await server.end()).toBe(0);
	});

	it("during a manual compact: compaction_end comes before new_session's answer, compact says the session replacement cancelled it", async () => {
		// Keep nothing whole, so two short exchanges leave something to summarize.
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		// Holds the compaction until it is aborted, so new_session arrives while it runs.
		const extension = join(cli.dir, "hold-compaction.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("session_before_compact", async (event) => {
		await new Promise((resolve) => event.signal.addEventListener("abort", resolve, { once: true }));
	});
}
`,
		);
		const server = new RpcClient(["--faux", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		for (const id of ["1", "2"]) {
			const settled = server.next((line) => line.type === "agent_settled");
			await server.request({ id, type: "prompt", message: `message ${id}` });
			await settled;
		}
		const started = server.next((line) => line.type === "compaction_start");
		const compacted = server.next((line) => line.type === "response" && line.id === "c");
		server.send({ id: "c", type: "compact" });
		await started;

		expect(await server.request({ id: "n", type: "new_session" })).toMatchObject({ success: true });
		expect(await compacted).toMatchObject({
			success: false,
			error:
				"The session was replaced or closed while compacting: the compaction was cancelled and nothing was written.",
		});
		expect(linesFrom(server, (line) => line.type === "compaction_start")).toEqual([
			"compaction_start",
			"compaction_end",
			"response:c",
			"response:n",
		]);
		expect(server.lines.find((line) => line.type === "compaction_end")).toMatchObject({ aborted: true });
		expect(await server.end()).toBe(0);
	});
});
