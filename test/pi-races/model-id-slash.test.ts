/**
 * pi#5643: a model id that holds a slash (`xiaomi/mimo-v2.5-pro`, served by a custom provider
 * `commandcode` from models.json) was read by `--model` as provider `xiaomi` and model
 * `mimo-v2.5-pro`, because `xiaomi` is also a built-in provider: "No API key found for xiaomi."
 * `/model` had listed it, and picking it there saved `defaultProvider: "commandcode"` with that
 * id, so the next start read the same id the wrong way too. What the user should see: the model
 * whose id is the whole argument answers, on the provider that serves it.
 *
 * Real `settle -p` child processes against a local OpenAI-compatible server.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { startWireServer, useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-model-id-slash-");
const server = useWireServer();

const NO_KEYS = { XIAOMI_API_KEY: undefined, OPENROUTER_API_KEY: undefined, GROQ_API_KEY: undefined };

/** models.json: `commandcode` serving `xiaomi/mimo-v2.5-pro` on `server`; `others` beside it. */
function writeCommandcode(others: Record<string, unknown> = {}): void {
	const commandcode = {
		baseUrl: `${server.url}/v1`,
		api: "openai-completions",
		apiKey: "cc-key",
		models: [{ id: "xiaomi/mimo-v2.5-pro" }],
	};
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { commandcode, ...others } }));
}

function settle(args: string[]) {
	return runSettleAsync(args, { cwd: cli.project, agentDir: cli.agentDir, env: NO_KEYS });
}

describe("pi#5643: a model id with a slash is read as provider/model when its first part is a built-in provider", () => {
	it("pi#5643: --model xiaomi/mimo-v2.5-pro runs commandcode's model of that id: the request reaches its server with the whole id and the answer is printed", async () => {
		writeCommandcode();
		server.reply(chatReply([{ type: "text", text: "mimo here" }]));
		const run = await settle(["--model", "xiaomi/mimo-v2.5-pro", "-p", "hello"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("mimo here\n");
		expect(run.code).toBe(0);
		expect(server.requests.map((request) => request.body.model)).toEqual(["xiaomi/mimo-v2.5-pro"]);
	});

	it("pi#5643: the same id saved as the default (defaultProvider commandcode) starts on commandcode's model", async () => {
		writeCommandcode();
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ defaultProvider: "commandcode", defaultModel: "xiaomi/mimo-v2.5-pro" }),
		);
		server.reply(chatReply([{ type: "text", text: "mimo again" }]));
		const run = await settle(["-p", "hello"]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toBe("mimo again\n");
		expect(server.requests.map((request) => request.body.model)).toEqual(["xiaomi/mimo-v2.5-pro"]);
	});

	it("pi#5643: when the built-in xiaomi has a key too, --model xiaomi/mimo-v2.5-pro stays provider/id: xiaomi's mimo-v2.5-pro answers", async () => {
		const xiaomiServer = await startWireServer();
		try {
			writeCommandcode({ xiaomi: { baseUrl: xiaomiServer.url, apiKey: "xiaomi-key" } });
			xiaomiServer.reply(anthropicReply([{ type: "text", text: "xiaomi here" }]));
			const run = await settle(["--model", "xiaomi/mimo-v2.5-pro", "-p", "hello"]);
			expect(run.stderr).toBe("");
			expect(run.stdout).toBe("xiaomi here\n");
			expect(xiaomiServer.requests.map((request) => request.body.model)).toEqual(["mimo-v2.5-pro"]);
			expect(server.requests).toEqual([]);
		} finally {
			await xiaomiServer.close();
		}
	});
});
