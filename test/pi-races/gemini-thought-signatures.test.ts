/**
 * Gemini 3 checks its thought signatures: the first function call of each of its steps in the
 * current turn must come back with the `thoughtSignature` it was sent with, else 400 "Function call
 * is missing a thought_signature in functionCall parts".
 *
 * - snow-cli#104: Gemini's own tool call sent back without its signature after the tool ran.
 * - pipecat#5809, docker-agent#2155, pi#1829: a tool call another model made (Claude, before a switch
 *   to Gemini while its tool ran) continued on Gemini 3 with no signature: refused on every try.
 *   Google documents a stand-in signature for such calls.
 *
 * Replayed through pi-ai's own clients (the Google GenAI SDK, the Anthropic SDK) against a local
 * server speaking both APIs, the Gemini side checking signatures as Gemini 3 does, and a real bash run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { SKIP_THOUGHT_SIGNATURE } from "../../src/llm/gemini-unsigned-calls.js";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import type { AssistantMessage, Model } from "../../src/llm/types.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { anthropicReply } from "../llm/wire/anthropic.js";
import { geminiError, geminiReply } from "../llm/wire/gemini.js";
import { type Router, startWireServer, type WireServer } from "../llm/wire/server.js";
import { API_KEY, wireModel } from "../llm/wire/session.js";

type Part = { text?: string; functionCall?: { name: string }; functionResponse?: unknown; thoughtSignature?: string };
type Content = { role: string; parts: Part[] };

const issued = new Set<string>();

/** Gemini 3's check: the first call of each step since the last user text carries a signature it knows. */
const gemini3: Router = (request, next) => {
	if (!request.path.includes(":streamGenerateContent")) return next();
	const contents = (request.body?.contents ?? []) as Content[];
	const start = contents.findLastIndex(
		(content) => content.role === "user" && content.parts.some((part) => typeof part.text === "string"),
	);
	for (const [index, content] of contents.entries()) {
		if (index <= start || content.role !== "model") continue;
		const call = content.parts.find((part) => part.functionCall);
		const signature = call?.thoughtSignature;
		if (call && !(signature === SKIP_THOUGHT_SIGNATURE || (signature && issued.has(signature)))) {
			return geminiError(
				400,
				"INVALID_ARGUMENT",
				`Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${call.functionCall!.name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
			);
		}
	}
	return next();
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project() {
	const server: WireServer = await startWireServer(gemini3);
	const dir = mkdtempSync(join(tmpdir(), "settle-gemini-signatures-"));
	const claude = wireModel("anthropic-messages", server.url);
	const gemini: Model = {
		...wireModel("anthropic-messages", server.url),
		id: "gemini-3-pro-wire",
		name: "Gemini 3 (wire test)",
		api: "google-generative-ai",
		provider: "google",
		baseUrl: `${server.url}/v1beta`,
	};
	const runtime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
		providers: [],
		useEnvironment: false,
		credentials: AuthStorage.inMemory({ anthropic: API_KEY, google: API_KEY }),
	});
	runtime.registerPiAiProvider("anthropic", [claude], { defaultModelId: claude.id });
	runtime.registerPiAiProvider("google", [gemini], { defaultModelId: gemini.id });
	const open = async (model: Model) => {
		const { session } = await createAgentSession({
			cwd: dir,
			agentDir: dir,
			modelRuntime: runtime,
			model: runtime.getModel(model.provider, model.id)!,
			settingsManager: SettingsManager.inMemory({ retry: { baseDelayMs: 1 }, defaultThinkingLevel: "high" }),
			sessionManager: SessionManager.create(dir, join(dir, "sessions")),
		});
		cleanups.unshift(async () => {
			await session.dispose();
		});
		return session;
	};
	cleanups.push(async () => {
		await server.close();
		rmSync(dir, { recursive: true, force: true });
	});
	return {
		server,
		dir,
		open,
		claude: runtime.getModel("anthropic", claude.id)!,
		gemini: runtime.getModel("google", gemini.id)!,
	};
}

const modelParts = (server: WireServer, index: number) =>
	((server.requests[index]!.body.contents ?? []) as Content[]).filter((content) => content.role === "model");
const last = (messages: readonly { role: string }[]) =>
	messages.findLast((m) => m.role === "assistant") as AssistantMessage;
const textOf = (message: AssistantMessage) =>
	message.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("snow-cli#104: Gemini 3's own tool call, continued after the tool ran", () => {
	it("snow-cli#104: the call goes back with the signature Gemini gave it; the answer arrives", async () => {
		const p = await project();
		const session = await p.open(p.gemini);
		issued.add("c2lnLXRob3VnaHQ=").add("c2lnLWNhbGw=");
		p.server.reply(
			geminiReply([
				{ text: "List first.", thought: true, thoughtSignature: "c2lnLXRob3VnaHQ=" },
				{ functionCall: { name: "bash", args: { command: "echo listed" } }, thoughtSignature: "c2lnLWNhbGw=" },
			]),
			geminiReply([{ text: "The folder is listed." }]),
		);
		await session.prompt("list the folder");
		expect(last(session.messages)).toMatchObject({ stopReason: "stop" });
		expect(textOf(last(session.messages))).toBe("The folder is listed.");
		expect(p.server.requests).toHaveLength(2);
		const [call] = modelParts(p.server, 1).flatMap((content) => content.parts.filter((part) => part.functionCall));
		expect(call).toMatchObject({ functionCall: { name: "bash" }, thoughtSignature: "c2lnLWNhbGw=" });
		expect(JSON.stringify(p.server.requests[1]!.body)).toContain("listed");
	});
});

describe("pipecat#5809, docker-agent#2155, pi#1829: Claude's tool call, continued on Gemini 3 after a switch while it ran", () => {
	it("pipecat#5809: the call goes to Gemini with Google's stand-in signature after the real bash run; Gemini's answer arrives and the next turn is answered too", async () => {
		const p = await project();
		const session = await p.open(p.claude);
		p.server.reply(
			anthropicReply(
				[{ type: "tool_use", id: "toolu_01Switch", name: "bash", input: { command: "echo from-claude" } }],
				{ stopReason: "tool_use" },
			),
			geminiReply([{ text: "Gemini read from-claude." }]),
			geminiReply([{ text: "Still Gemini." }]),
		);
		let switched: Promise<unknown> | undefined;
		session.subscribe((event) => {
			if (event.type === "tool_execution_start" && !switched) switched = session.setModel(p.gemini, { persist: false });
		});
		await session.prompt("run it");
		await switched;
		expect(p.server.requests.map((request) => request.path.split("?")[0])).toEqual([
			"/v1/messages",
			"/v1beta/models/gemini-3-pro-wire:streamGenerateContent",
		]);
		expect(last(session.messages)).toMatchObject({ provider: "google", stopReason: "stop" });
		expect(textOf(last(session.messages))).toBe("Gemini read from-claude.");
		const [call] = modelParts(p.server, 1).flatMap((content) => content.parts.filter((part) => part.functionCall));
		expect(call).toMatchObject({ functionCall: { name: "bash" }, thoughtSignature: SKIP_THOUGHT_SIGNATURE });
		expect(JSON.stringify(p.server.requests[1]!.body)).toContain("from-claude");

		// A new turn: the old call is history, Gemini checks nothing there, and nothing is added.
		await session.prompt("and now?");
		expect(textOf(last(session.messages))).toBe("Still Gemini.");
		const [old] = modelParts(p.server, 2).flatMap((content) => content.parts.filter((part) => part.functionCall));
		expect(old).toEqual({ functionCall: expect.objectContaining({ name: "bash" }) });
	});
});
