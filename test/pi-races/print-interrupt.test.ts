/**
 * gemini-cli#11479, replayed: Ctrl+C in a non-interactive run was not respected: the answer went on
 * streaming onto the terminal after several presses. Against Settle: a real `settle -p` and
 * `settle --mode json -p` sent one SIGINT (what the terminal sends on Ctrl+C) while the answer
 * streams from a local server whose stream stays open: the request is cut (the server sees its
 * connection closed), nothing is written after the run's end (`-p` prints no partial answer as if
 * it were one; stderr says the request was aborted), and the process exits 130.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type CliRun, signalSettleWhen, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatPartial } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-print-interrupt-");

/** A guard against a hang only: a hung run is killed, its code null. */
const HANG_GUARD_MS = 30_000;

/** Says on stderr when the answer streams. */
const STREAMING_EXTENSION = `export default function (pi) {
	let said = false;
	pi.on("message_update", () => {
		if (!said) process.stderr.write("streaming\\n");
		said = true;
	});
}
`;

/** `settle <args>` on the local model, sent one SIGINT once the answer streams. */
function interruptWhileStreaming(args: string[]): Promise<CliRun> {
	const extension = join(cli.dir, "streaming.mjs");
	writeFileSync(extension, STREAMING_EXTENSION);
	return signalSettleWhen(["--model", "local/coder", "--no-session", "-e", extension, ...args], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		stream: "stderr",
		text: "streaming\n",
		signal: "SIGINT",
		guardMs: HANG_GUARD_MS,
	});
}

describe("gemini-cli#11479: Ctrl+C in a non-interactive run was not respected; the answer kept streaming", () => {
	const server = useWireServer();
	beforeEach(() => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// The answer streams, then the stream stays open: only an interrupt ends the run.
		server.reply(chatPartial([{ type: "text", text: "A story that goes on and on" }], 3, "hang"));
	});

	it("gemini-cli#11479: settle --mode json -p, one SIGINT while the answer streams: the request is cut, agent_end (aborted) then agent_settled are the last lines, exit 130", async () => {
		const run = await interruptWhileStreaming(["--mode", "json", "-p", "write a very long story"]);
		expect(run.code).toBe(130);
		expect(server.closedByClient).toHaveLength(1);
		const events = run.stdout
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; messages?: { stopReason?: string }[] });
		expect(events.slice(-2).map((event) => event.type)).toEqual(["agent_end", "agent_settled"]);
		expect(events.at(-2)!.messages!.at(-1)!.stopReason).toBe("aborted");
	});

	it("gemini-cli#11479: settle -p, one SIGINT while the answer streams: the request is cut, nothing on stdout, stderr says the request was aborted, exit 130", async () => {
		const run = await interruptWhileStreaming(["-p", "write a very long story"]);
		expect(run.code).toBe(130);
		expect(server.closedByClient).toHaveLength(1);
		// The partial answer is not printed as if it were the answer; stderr says why there is none.
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe("streaming\nRequest was aborted\n");
	});
});
