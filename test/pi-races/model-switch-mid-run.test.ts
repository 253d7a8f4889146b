/**
 * hermes-agent#112121: a `/model` switch made while a request was failing sent the retry with the
 * old model's name to the new provider: a 404, then a long rate-limit hold, the turn lost. Settle's
 * retry reads the model when it sends, so what the user should see: the retry goes whole to the
 * model switched to (its endpoint, its id, its API), the answer arrives, and the file says which
 * model wrote what.
 *
 * jmfederico/pi-web#122: after switching models, the next answer was labelled with the session's
 * first model. What the user should see: each saved answer names the model that wrote it; one that
 * was streaming when the switch came is the old model's, the next request the new one's.
 *
 * mistral-vibe#945: after `/model`, the session's cost re-priced every earlier token at the new
 * model's price (one price pair per session). What the user should see: each answer billed at the
 * price of the model that wrote it, the totals split by model, the same once the file is reopened.
 *
 * Two providers on one local server (an OpenAI-compatible one, an Anthropic one), reached through
 * pi-ai's own clients; a whole session from `createAgentSession`, its JSONL on disk.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { SimulatedClock } from "../../src/testing/index.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { chatEvents, chatReply, openAiError } from "../llm/wire/openai.js";
import { encodeSse, startWireServer, type WireServer } from "../llm/wire/server.js";
import { API_KEY, wireModel } from "../llm/wire/session.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A session on `alpha/alpha-1` (OpenAI chat completions) beside `beta/beta-1` (Anthropic), one server. */
async function twoProviders(clock?: SimulatedClock) {
	const server: WireServer = await startWireServer();
	const dir = mkdtempSync(join(tmpdir(), "settle-model-switch-mid-run-"));
	const runtime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
		providers: [],
		useEnvironment: false,
		credentials: AuthStorage.inMemory({ alpha: API_KEY, beta: API_KEY }),
	});
	// Prices per million tokens: beta costs ten times alpha.
	const alphaModel = wireModel("openai-completions", server.url, {
		provider: "alpha",
		id: "alpha-1",
		name: "alpha-1",
		cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
	});
	const betaModel = wireModel("anthropic-messages", server.url, {
		provider: "beta",
		id: "beta-1",
		name: "beta-1",
		cost: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0 },
	});
	runtime.registerPiAiProvider("alpha", [alphaModel], { defaultModelId: "alpha-1" });
	runtime.registerPiAiProvider("beta", [betaModel], { defaultModelId: "beta-1" });
	/** A reopened file (`startOn` null) goes on with the model it records. */
	const open = async (sessionManager: SessionManager, startOn = runtime.getModel("alpha", "alpha-1") ?? null) => {
		const { session } = await createAgentSession({
			cwd: dir,
			agentDir: dir,
			modelRuntime: runtime,
			...(startOn ? { model: startOn } : {}),
			thinkingLevel: "off",
			settingsManager: SettingsManager.inMemory({ retry: { baseDelayMs: 2000, provider: { maxRetries: 0 } } }),
			sessionManager,
			...(clock ? { clock } : {}),
		});
		cleanups.push(() => {
			session.dispose();
			sessionManager.close();
		});
		return session;
	};
	cleanups.push(async () => {
		await server.close();
		rmSync(dir, { recursive: true, force: true });
	});
	const sessionManager = SessionManager.create(dir, join(dir, "sessions"));
	const session = await open(sessionManager);
	return { server, session, sessionManager, beta: runtime.getModel("beta", "beta-1")!, open };
}

/** Each request as `path model`. */
const sent = (server: WireServer) => server.requests.map((request) => `${request.path} ${request.body.model}`);

/** The file's model changes and assistant messages, in order: `model_change p/id`, `assistant p/id stopReason`. */
function fileTrail(session: AgentSession): string[] {
	return readFileSync(session.sessionFile!, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.flatMap((entry) => {
			if (entry.type === "model_change") return [`model_change ${entry.provider}/${entry.modelId}`];
			if (entry.type === "message" && entry.message.role === "assistant") {
				const { provider, model, stopReason } = entry.message;
				return [`assistant ${provider}/${model} ${stopReason}`];
			}
			return [];
		});
}

function onEvent(session: AgentSession, type: string, then: () => void): void {
	const off = session.subscribe((event) => {
		if (event.type === type) {
			off();
			then();
		}
	});
}

describe("hermes-agent#112121: a model switch during a retry's backoff sent the old model's name to the new provider", () => {
	it("hermes-agent#112121: setModel while a 503 waits to be retried: the retry goes to beta's endpoint with beta's id, the answer is beta's, the file records each model", async () => {
		const clock = new SimulatedClock();
		const { server, session, beta } = await twoProviders(clock);
		server.reply(
			openAiError(503, "The server is overloaded. Please try again later.", "server_error"),
			anthropicReply([{ type: "text", text: "beta answers" }]),
		);
		let delayMs = 0;
		const retrying = new Promise<void>((resolve) =>
			session.subscribe((event) => {
				if (event.type === "auto_retry_start") {
					delayMs = event.delayMs;
					resolve();
				}
			}),
		);
		const done = session.prompt("hello");
		await retrying;
		await session.setModel(beta, { persist: false });
		clock.increment(delayMs);
		await done;

		expect(sent(server)).toEqual(["/v1/chat/completions alpha-1", "/v1/messages beta-1"]);
		expect(session.messages.at(-1)).toMatchObject({
			role: "assistant",
			provider: "beta",
			model: "beta-1",
			content: [{ type: "text", text: "beta answers" }],
		});
		expect(fileTrail(session)).toEqual([
			"model_change alpha/alpha-1",
			"assistant alpha/alpha-1 error",
			"model_change beta/beta-1",
			"assistant beta/beta-1 stop",
		]);
	});
});

describe("jmfederico/pi-web#122: after a model switch the answer was labelled with the session's first model", () => {
	it("pi-web#122: a switch while alpha's answer streams: that answer is alpha's; the next prompt goes to beta and its answer is beta's, live and in the file", async () => {
		const { server, session, beta } = await twoProviders();
		const events = chatEvents([{ type: "text", text: "alpha streams this answer" }]);
		let finish: () => void = () => {};
		server.reply((_request, res) => {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.write(encodeSse(events.slice(0, 2)));
			finish = () => res.end(encodeSse(events.slice(2)));
		});
		server.reply(anthropicReply([{ type: "text", text: "beta answers next" }]));
		const streaming = new Promise<void>((resolve) => onEvent(session, "message_update", resolve));
		const first = session.prompt("first");
		await streaming;
		await session.setModel(beta, { persist: false });
		finish();
		await first;
		await session.prompt("second");

		expect(sent(server)).toEqual(["/v1/chat/completions alpha-1", "/v1/messages beta-1"]);
		const answers = session.messages.filter((message) => message.role === "assistant");
		expect(answers).toMatchObject([
			{ provider: "alpha", model: "alpha-1", content: [{ type: "text", text: "alpha streams this answer" }] },
			{ provider: "beta", model: "beta-1", content: [{ type: "text", text: "beta answers next" }] },
		]);
		expect(fileTrail(session)).toEqual([
			"model_change alpha/alpha-1",
			"model_change beta/beta-1",
			"assistant alpha/alpha-1 stop",
			"assistant beta/beta-1 stop",
		]);
	});
});

describe("mistral-vibe#945: after a model switch, earlier tokens were re-priced at the new model's price", () => {
	it("mistral-vibe#945: an answer on alpha, a switch, an answer on beta: each billed at its own model's price, split by model; the reopened file says the same", async () => {
		const { server, session, sessionManager, beta, open } = await twoProviders();
		server.reply(
			chatReply([{ type: "text", text: "alpha answers" }], {
				model: "alpha-1",
				usage: { prompt: 1000, completion: 100 },
			}),
			anthropicReply([{ type: "text", text: "beta answers" }], {
				model: "beta-1",
				usage: { input: 1000, output: 100 },
			}),
		);
		await session.prompt("first");
		await session.setModel(beta, { persist: false });
		await session.prompt("second");

		// alpha: 1000 × $1 + 100 × $2 per million; beta: 1000 × $10 + 100 × $20 per million.
		const alphaCost = (1000 * 1 + 100 * 2) / 1e6;
		const betaCost = (1000 * 10 + 100 * 20) / 1e6;
		const stats = session.getSessionStats();
		expect(stats.cost).toBeCloseTo(alphaCost + betaCost, 10);
		expect(stats.byModel.map(({ key, cost, tokens }) => ({ key, cost, output: tokens.output }))).toEqual([
			{ key: "beta/beta-1", cost: expect.closeTo(betaCost, 10), output: 100 },
			{ key: "alpha/alpha-1", cost: expect.closeTo(alphaCost, 10), output: 100 },
		]);

		session.dispose();
		sessionManager.close();
		const reopened = await open(SessionManager.open(session.sessionFile!), null);
		expect(reopened.model).toMatchObject({ provider: "beta", id: "beta-1" });
		const again = reopened.getSessionStats();
		expect(again.cost).toBeCloseTo(stats.cost, 10);
		expect(again.byModel).toEqual(stats.byModel);
	});
});
