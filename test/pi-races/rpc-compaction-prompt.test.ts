/**
 * pi#7150, replayed against a real `settle --rpc` child process: an extension compacts from
 * `agent_settled` (the report's threshold extension; any compaction will do), and the instant
 * `compaction_start` arrives the client sends a `prompt`. pi acknowledged it `success: true`, then
 * nothing: no run started, and the text was in neither `get_messages` nor the session file. What
 * the client should see: a prompt it can trust — either run, or refused with a response that says
 * so; never accepted and dropped.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMPACTION_IN_PROGRESS } from "../../src/session/texts.js";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-compaction-prompt-");

/**
 * Compacts from `agent_settled` once two exchanges are saved (the report's extension), and holds the
 * compaction in `session_before_compact` until `gate` exists: the window the report's user typed in.
 */
const COMPACT_ON_SETTLED = (gate: string) => `import { existsSync } from "node:fs";
export default function (pi) {
	let compacted = false;
	pi.on("agent_settled", (_event, ctx) => {
		const messages = ctx.sessionManager.getEntries().filter((entry) => entry.type === "message");
		if (compacted || messages.length < 4) return;
		compacted = true;
		ctx.compact();
	});
	pi.on("session_before_compact", async () => {
		while (!existsSync(${JSON.stringify(gate)})) await new Promise((resolve) => setTimeout(resolve, 10));
	});
}
`;

/** The user texts a session file holds, in file order. */
function savedUserTexts(file: string): string[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "message" && entry.message.role === "user")
		.map((entry) => entry.message.content.map((block: { text?: string }) => block.text ?? "").join(""));
}

describe("pi#7150: an RPC prompt during an in-flight compaction is ACKed success: true, then silently dropped", () => {
	it("pi#7150: settle --rpc: a prompt sent while an extension's compaction runs is refused with success: false saying to retry (also with streamingBehavior); nothing runs; retried after the compaction it is answered and saved once, with the steer sent meanwhile", async () => {
		const gate = join(cli.dir, "gate");
		const extension = join(cli.dir, "compact-on-settled.mjs");
		writeFileSync(extension, COMPACT_ON_SETTLED(gate));
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		// The faux model answers with the last user message.
		const client = new RpcClient(["--faux", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		const compactionStarted = client.next((line) => line.type === "compaction_start");
		await client.promptAndSettle("first question", "p1");
		await client.promptAndSettle("second question", "p2");
		await compactionStarted;
		const linesBefore = client.lines.length;

		// The report's probe, the instant the compaction started; and the same as a queued prompt.
		expect(await client.request({ id: "p3", type: "prompt", message: "probe while compacting" })).toEqual({
			id: "p3",
			type: "response",
			command: "prompt",
			success: false,
			error: COMPACTION_IN_PROGRESS,
		});
		expect(
			await client.request({
				id: "p4",
				type: "prompt",
				message: "probe as a follow-up",
				streamingBehavior: "followUp",
			}),
		).toMatchObject({ success: false, error: COMPACTION_IN_PROGRESS });
		// A steer is accepted: it is listed for the next prompt (as on any idle session).
		expect(await client.request({ id: "st", type: "steer", message: "steer while compacting" })).toMatchObject({
			success: true,
		});
		const state = (await client.request({ id: "s1", type: "get_state" })) as {
			data: { isCompacting: boolean; sessionFile: string; pendingMessageCount: number };
		};
		expect(state.data).toMatchObject({ isCompacting: true, pendingMessageCount: 1 });

		const compactionEnded = client.next((line) => line.type === "compaction_end");
		writeFileSync(gate, "");
		expect(await compactionEnded).toMatchObject({ aborted: false });
		// Nothing ran for the refused prompts.
		expect(client.lines.slice(linesBefore).some((line) => line.type === "agent_start")).toBe(false);
		expect(JSON.stringify(await client.request({ id: "m1", type: "get_messages" }))).not.toContain("probe");
		expect(savedUserTexts(state.data.sessionFile)).toEqual(["first question", "second question"]);

		// The client retries, as the refusal says: answered and saved once after the compaction; the steer
		// reaches that run (after its first answer, as a steer does).
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p5", type: "prompt", message: "probe while compacting" })).toMatchObject({
			success: true,
		});
		await settled;
		expect(savedUserTexts(state.data.sessionFile)).toEqual([
			"first question",
			"second question",
			"probe while compacting",
			"steer while compacting",
		]);
		const entryTypes = readFileSync(state.data.sessionFile, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line).type);
		expect(entryTypes.lastIndexOf("compaction")).toBeLessThan(entryTypes.length - 3);
		expect(existsSync(gate)).toBe(true);
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});
});
