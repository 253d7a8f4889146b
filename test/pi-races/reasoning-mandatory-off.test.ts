/**
 * rakazo#114 (an app on pi's SDK), vellum-assistant#32428: at thinking `off`, pi-ai asks OpenRouter
 * for `reasoning: { effort: "none" }`, and OpenRouter refuses it for a model that always reasons
 * (DeepSeek R1, Gemini 3 Flash, MiniMax M2.5): "400 Reasoning is mandatory for this endpoint and
 * cannot be disabled." on every prompt. The catalog marks such a model `reasoning: true` with no
 * `thinkingLevelMap`, so `off` is offered, and nothing said what to change. What the user should
 * see: the refusal, then the two ways out; and with `off` taken off the model's levels
 * (`thinkingLevelMap.off: null`), the answer.
 *
 * Real `settle -p` processes, openrouter's `baseUrl` pointed at a local server answering through
 * pi-ai's Chat Completions client as OpenRouter does.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { json, useWireServer } from "../llm/wire/server.js";

const MANDATORY = "Reasoning is mandatory for this endpoint and cannot be disabled.";

const NOTE =
	'openrouter/deepseek/deepseek-r1 always reasons and refused thinking off. Pick a thinking level (--thinking minimal, /thinking minimal), or set "thinkingLevelMap": {"off": null} for it in models.json ("modelOverrides" for a built-in provider\'s model), so off is not offered and its lowest level applies.';

describe("rakazo#114: thinking off on a model that always reasons, refused on every prompt with no hint", () => {
	const cli = useCliProject("settle-reasoning-mandatory-");
	const server = useWireServer((request, next) => {
		const body = request.body as { reasoning?: { effort?: string } };
		return body.reasoning?.effort === "none" ? json(400, { error: { message: MANDATORY, code: 400 } }) : next();
	});

	function writeModels(overrides?: unknown): void {
		const openrouter = { baseUrl: `${server.url}/api/v1`, ...(overrides ? { modelOverrides: overrides } : {}) };
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "models.json"), JSON.stringify({ providers: { openrouter } }));
	}

	const ask = (thinking: string) =>
		runSettleAsync(["--no-session", "--model", "openrouter/deepseek/deepseek-r1", "--thinking", thinking, "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { OPENROUTER_API_KEY: "openrouter-key" },
		});

	it("rakazo#114: --thinking off on openrouter/deepseek/deepseek-r1: refused 400; stderr adds which level to pick or which setting takes off away, exit 1", async () => {
		writeModels();
		const run = await ask("off");

		expect(server.requests[0]!.body).toMatchObject({ reasoning: { effort: "none" } });
		expect(run.stderr).toContain(MANDATORY);
		expect(run.stderr.endsWith(`\n\n${NOTE}\n`)).toBe(true);
		expect(run.code).toBe(1);
		expect(server.requests).toHaveLength(1);
	});

	it('vellum-assistant#32428: with "thinkingLevelMap": {"off": null} in modelOverrides, --thinking off runs at the lowest level and the answer arrives', async () => {
		writeModels({ "deepseek/deepseek-r1": { thinkingLevelMap: { off: null } } });
		server.reply(chatReply([{ type: "text", text: "Hello." }], { model: "deepseek/deepseek-r1" }));
		const run = await ask("off");

		expect(server.requests[0]!.body).toMatchObject({ reasoning: { effort: "minimal" } });
		expect(run.stdout).toBe("Hello.\n");
		expect(run.code).toBe(0);
	});

	it("rakazo#114: a refusal with thinking on gets no such note: the note names only the cause it knows", async () => {
		writeModels();
		server.reply(json(400, { error: { message: MANDATORY, code: 400 } }));
		const run = await ask("low");

		expect(server.requests[0]!.body).toMatchObject({ reasoning: { effort: "low" } });
		expect(run.stderr).toContain(MANDATORY);
		expect(run.stderr).not.toContain("thinkingLevelMap");
	});
});
