/**
 * Which model a resumed session runs on, when its answers name a model other than the one picked.
 *
 * pi#9243: behind a relay that namespaces its ids (catalog `anthropic/claude-opus-5`, forwarded
 * upstream as `claude-opus-5`), each answer records the name the upstream echoed. `pi -c` took the
 * last answer's name over the last `model_change`, missed it in the catalog, and resumed on another
 * model ("Could not restore model", silent in `-p`). What the user should see: `settle -c` asks the
 * model the session picked, with no warning. Here with a real `settle -c` over a file as newer pi
 * writes it, and a local server speaking Anthropic's wire format.
 *
 * The answer still wins when the catalog knows it: pi 0.73.1 records `-c --model` only in the
 * answers (no `model_change`), and such a file must resume on the model it last ran.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-resume-recorded-model-");
const server = useWireServer();

/** The relay's catalog: the first model is what a session falls back to when its own is missed. */
const RELAY = {
	api: "anthropic-messages",
	models: [{ id: "anthropic/claude-haiku-5" }, { id: "anthropic/claude-opus-5" }, { id: "anthropic/claude-sonnet-5" }],
};

/** A session picked on `local/<picked>` whose one answer names `answeredBy`. */
function writeSession(picked: string, answeredBy: string) {
	const sessionDir = join(cli.dir, "sessions");
	mkdirSync(sessionDir, { recursive: true });
	const at = "2026-09-06T10:00:00.000Z";
	const usage = {
		input: 10,
		output: 5,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 15,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
	const entries = [
		{
			type: "session",
			version: 3,
			id: "0199f000-0000-7000-8000-000000009243",
			timestamp: at,
			cwd: realpathSync(cli.project),
		},
		{ type: "model_change", id: "e1", parentId: null, timestamp: at, provider: "local", modelId: picked },
		{ type: "thinking_level_change", id: "e2", parentId: "e1", timestamp: at, thinkingLevel: "off" },
		{
			type: "message",
			id: "e3",
			parentId: "e2",
			timestamp: at,
			message: { role: "user", content: [{ type: "text", text: "hello" }], timestamp: 1_788_000_000_000 },
		},
		{
			type: "message",
			id: "e4",
			parentId: "e3",
			timestamp: at,
			message: {
				role: "assistant",
				content: [{ type: "text", text: "Hi." }],
				api: "anthropic-messages",
				provider: "local",
				model: answeredBy,
				usage,
				stopReason: "stop",
				timestamp: 1_788_000_000_000,
			},
		},
	];
	writeFileSync(
		join(sessionDir, "2026-09-06T10-00-00-000Z_0199f000-0000-7000-8000-000000009243.jsonl"),
		`${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`,
	);
	return sessionDir;
}

describe("pi#9243: a resumed session whose answers echo the upstream's model name", () => {
	it("pi#9243: `settle -c` asks the picked relay model (anthropic/claude-opus-5), not the catalog's first, and warns of nothing", async () => {
		writeLocalProvider(cli.agentDir, server.url, RELAY);
		const sessionDir = writeSession("anthropic/claude-opus-5", "claude-opus-5");
		server.reply(anthropicReply([{ type: "text", text: "Opus again." }], { model: "claude-opus-5" }));

		const run = await runSettleAsync(["--session-dir", sessionDir, "-c", "-p", "go on"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Opus again.\n");
		expect(run.code).toBe(0);
		expect(server.requests.map((request) => request.body.model)).toEqual(["anthropic/claude-opus-5"]);
	});

	it("pi#9243 (pi 0.73.1 files): an answer of another catalog model after the pick (`pi -c --model`) still wins: `settle -c` asks anthropic/claude-sonnet-5", async () => {
		writeLocalProvider(cli.agentDir, server.url, RELAY);
		const sessionDir = writeSession("anthropic/claude-opus-5", "anthropic/claude-sonnet-5");
		server.reply(anthropicReply([{ type: "text", text: "Sonnet again." }], { model: "claude-sonnet-5" }));

		const run = await runSettleAsync(["--session-dir", sessionDir, "-c", "-p", "go on"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("Sonnet again.\n");
		expect(server.requests.map((request) => request.body.model)).toEqual(["anthropic/claude-sonnet-5"]);
	});
});
