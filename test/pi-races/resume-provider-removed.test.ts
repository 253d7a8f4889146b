/**
 * hermes-agent#52943: a session made on a provider that was later taken out of the config. Resuming
 * it silently started a brand-new session on the default provider: no error, no word on why, the
 * history gone from the conversation. Replayed with real `settle -p` / `settle -c -p` processes
 * and two local OpenAI-compatible servers declared in models.json, the first one removed between
 * the runs. What the user should see: the same session continued (one session file, its history
 * sent to the model now used), and a warning that names the model it could not restore and why.
 *
 * opencode#42781: an old session whose recorded model the provider had since removed, resumed with
 * a valid `--model` override (`opencode run --session <id> --model …`): exit 0, no request, no
 * output. What the user should see: the given model answering, with the session's history.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeModelsJson } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-resume-provider-removed-");

function writeProviders(providers: Record<string, string>): void {
	const entries = Object.fromEntries(
		Object.entries(providers).map(([name, url]) => [
			name,
			{ baseUrl: `${url}/v1`, api: "openai-completions", apiKey: "local-key", models: [{ id: `${name}-model` }] },
		]),
	);
	writeModelsJson(cli.agentDir, entries);
}

function sessionFiles(): string[] {
	return readdirSync(join(cli.agentDir, "sessions"), { recursive: true, encoding: "utf8" }).filter((name) =>
		name.endsWith(".jsonl"),
	);
}

/**
 * Runs a first session on zai ("remember the word heron", answered "first answer"), takes zai out of
 * models.json, then hands the remaining provider's server ("second answer") to `resume`.
 */
async function afterZaiRemoved(resume: (kept: WireServer, run: { cwd: string; agentDir: string }) => Promise<void>) {
	const gone = await startWireServer(() => chatReply([{ type: "text", text: "first answer" }]));
	const kept = await startWireServer(() => chatReply([{ type: "text", text: "second answer" }]));
	try {
		const run = { cwd: cli.project, agentDir: cli.agentDir };
		writeProviders({ zai: gone.url, mine: kept.url });
		const first = await runSettleAsync(["--model", "zai/zai-model", "-p", "remember the word heron"], run);
		expect(first).toMatchObject({ code: 0, stdout: "first answer\n" });
		writeProviders({ mine: kept.url });
		await resume(kept, run);
	} finally {
		await gone.close();
		await kept.close();
	}
}

describe("hermes-agent#52943: resuming a session whose provider was removed", () => {
	it("hermes-agent#52943: settle -c after the session's provider left models.json continues the same session on the remaining model, history sent, and warns which model it could not restore", async () => {
		await afterZaiRemoved(async (kept, run) => {
			const resumed = await runSettleAsync(["-c", "-p", "which word?"], run);
			expect(resumed.code).toBe(0);
			expect(resumed.stdout).toBe("second answer\n");
			expect(resumed.stderr).toContain("Could not restore model zai/zai-model (no model zai/zai-model here)");
			expect(resumed.stderr).toContain("mine/mine-model");

			// The same conversation, continued: its history reached the model now used.
			expect(kept.requests).toHaveLength(1);
			const sent = JSON.stringify(kept.requests[0]?.body);
			expect(sent).toContain("remember the word heron");
			expect(sent).toContain("first answer");
			const files = sessionFiles();
			expect(files).toHaveLength(1);
			const lines = readFileSync(join(cli.agentDir, "sessions", files[0]!), "utf8");
			expect(lines).toContain("remember the word heron");
			expect(lines).toContain("second answer");
		});
	});
});

describe("opencode#42781: resuming with --model a session whose recorded model is gone", () => {
	it("opencode#42781: settle -c --model mine/mine-model -p after zai left models.json: mine answers with the session's history, the file records the switch, no restore warning", async () => {
		await afterZaiRemoved(async (kept, run) => {
			const resumed = await runSettleAsync(["-c", "--model", "mine/mine-model", "-p", "which word?"], run);
			expect(resumed).toMatchObject({ code: 0, stdout: "second answer\n" });
			expect(resumed.stderr).not.toContain("Could not restore");
			expect(kept.requests).toHaveLength(1);
			expect(JSON.stringify(kept.requests[0]?.body)).toContain("remember the word heron");
			const files = sessionFiles();
			expect(files).toHaveLength(1);
			const lines = readFileSync(join(cli.agentDir, "sessions", files[0]!), "utf8");
			expect(lines).toContain('"provider":"mine","modelId":"mine-model"');
		});
	});
});
