/**
 * opencode#45368, kimi-code#2325: on a small-window model (a local 16k or 32k server) compaction ran
 * after every step: what it kept was already over the threshold, so the next answer compacted
 * again, one turn at a time, and the session spent its requests summarizing. In Settle (as in pi
 * 0.73.1) a 32768-token model with the default settings kept 20000 tokens, over its 16384-token
 * threshold. Replayed with real `settle -p` processes against a local OpenAI-compatible server that
 * reports the usage of what it was sent. What the user should see: after a compaction the next
 * prompt is answered without another one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-compaction-every-turn-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

const isSummaryRequest = (request: RecordedRequest) =>
	JSON.stringify(request.body?.messages ?? "").includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40));

function compactions(): number {
	const sessionDir = join(cli.dir, "sessions");
	const [file] = readdirSync(sessionDir);
	return readFileSync(join(sessionDir, file!), "utf8")
		.trim()
		.split("\n")
		.filter((line) => JSON.parse(line).type === "compaction").length;
}

describe("opencode#45368, kimi-code#2325: compaction after every prompt on a small window", () => {
	it("opencode#45368: a local 32768-token model, default settings, prompts of ~2000 tokens: no prompt right after a compaction compacts again", {
		timeout: 120_000,
	}, async () => {
		let answers = 0;
		// The server counts what it was sent (about 4 characters a token), as llama-server reports it.
		server = await startWireServer((request) => {
			const prompt = Math.ceil(JSON.stringify(request.body ?? {}).length / 4);
			if (isSummaryRequest(request)) {
				return chatReply([{ type: "text", text: "## Goal\nanswer the questions" }], {
					usage: { prompt, completion: 10 },
				});
			}
			answers++;
			return chatReply([{ type: "text", text: `answer ${answers}` }], { usage: { prompt, completion: 3 } });
		});
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 32_768 }] });
		const prompts = 14;
		const compactedAfter: boolean[] = [];
		for (let n = 1; n <= prompts; n++) {
			const before = n === 1 ? 0 : compactions();
			const run = await runSettleAsync(
				[
					"--session-dir",
					join(cli.dir, "sessions"),
					"--model",
					"local/coder",
					"--no-tools",
					...(n === 1 ? [] : ["-c"]),
					"-p",
					`question ${n} ${"word ".repeat(1600)}`,
				],
				{ cwd: cli.project, agentDir: cli.agentDir },
			);
			expect(run.stderr).toBe("");
			expect(run.stdout).toBe(`answer ${n}\n`);
			compactedAfter.push(compactions() > before);
		}
		expect(compactedAfter.filter(Boolean).length).toBeGreaterThan(0);
		// Prompts (1-based) that compacted right after a compaction. Before the fix: 12, 13 and 14.
		const backToBack = compactedAfter.flatMap((compacted, n) => (compacted && compactedAfter[n - 1] ? [n + 1] : []));
		expect(backToBack).toEqual([]);
	});
});
