/**
 * zuisong/gemini-openai-proxy#83, google-gemini/deprecated-generative-ai-python#697: Gemini
 * refuses a request holding a text part with no text, "Unable to submit request because it has an
 * empty text parameter", on every later request of the conversation (two user turns in a row it
 * now takes, as the first report's maintainer found). pi-ai 0.73.1 sends an extension's message
 * of empty text as such a part (an answer's blank text it leaves out).
 *
 * A session file continued with a real `settle --session <file> -p` on a local Gemini API
 * endpoint refusing as Gemini does, through pi-ai's Google client. What the user should see: the
 * answer; the request holds the prompt and no blank part; the file keeps the message.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { runSettleAsync, useCliProject } from "../cli/helpers.js";
import { geminiError, geminiReply, writeGeminiProvider } from "../llm/wire/gemini.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-gemini-empty-text-");
let server: WireServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

type SentContent = { role: string; parts: { text?: string }[] };

/** The "gem" provider on the local Gemini endpoint, in the project's models.json. */
function useGeminiServer(wire: WireServer): void {
	writeGeminiProvider(cli.agentDir, wire.url);
}

/** A Gemini answer as a session file stores it. */
const answer = (text: string, timestamp: number) => ({
	role: "assistant" as const,
	api: "google-generative-ai" as const,
	provider: "gem",
	model: "gemini-wire",
	usage: {
		input: 1,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 2,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	},
	timestamp,
	content: [{ type: "text" as const, text }],
	stopReason: "stop" as const,
});

/** `settle --session <file> -p "what next?"` on the "gem" model. */
const askWhatNext = (file: string) =>
	runSettleAsync(["--session", file, "--model", "gem/gemini-wire", "-p", "what next?"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
	});

describe("zuisong/gemini-openai-proxy#83: an empty text part sent to Gemini", () => {
	it("zuisong/gemini-openai-proxy#83: an extension's message with empty text before the prompt: the answer arrives; no empty text part goes, the prompt does; the file keeps the message", async () => {
		server = await startWireServer((request, next) => {
			const contents = (request.body.contents ?? []) as SentContent[];
			const empty = contents.some((content) => content.parts.some((part) => part.text?.trim() === ""));
			if (!empty) return next();
			return geminiError(
				400,
				"INVALID_ARGUMENT",
				"Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini",
			);
		});
		useGeminiServer(server);
		const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
		sm.appendMessage({ role: "user", content: "hello", timestamp: 1 });
		sm.appendMessage(answer("Hi.", 2));
		sm.appendCustomMessageEntry("status", "", true);
		const file = sm.getSessionFile()!;
		sm.close();
		const before = readFileSync(file, "utf8");
		server.reply(geminiReply([{ text: "Tests next." }], "gemini-wire"));

		const run = await askWhatNext(file);
		expect(run.stderr).not.toContain("empty text parameter");
		expect(run.stdout).toContain("Tests next.");
		expect(run.code).toBe(0);
		const contents = server.requests.at(-1)!.body.contents as SentContent[];
		expect(contents.flatMap((content) => content.parts).map((part) => part.text)).toEqual([
			"hello",
			"Hi.",
			"what next?",
		]);
		expect(readFileSync(file, "utf8").startsWith(before)).toBe(true);
	});

	it("hermes-agent#55125: an extension's message of empty text the model answered: the answer arrives; the two answers around the message left out go as one model turn, roles alternating", async () => {
		server = await startWireServer((request, next) => {
			const contents = (request.body.contents ?? []) as SentContent[];
			const inARow = contents.some((content, i) => i > 0 && content.role === contents[i - 1]!.role);
			if (!inARow) return next();
			return geminiError(
				400,
				"INVALID_ARGUMENT",
				"Please ensure that multiturn requests alternate between user and model.",
			);
		});
		useGeminiServer(server);
		const sm = SessionManager.create(cli.project, join(cli.dir, "sessions"));
		sm.appendMessage({ role: "user", content: "hello", timestamp: 1 });
		sm.appendMessage(answer("Hi.", 2));
		sm.appendCustomMessageEntry("status", "", true);
		sm.appendMessage(answer("Anything else?", 3));
		const file = sm.getSessionFile()!;
		sm.close();
		const before = readFileSync(file, "utf8");
		server.reply(geminiReply([{ text: "Tests next." }], "gemini-wire"));

		const run = await askWhatNext(file);
		expect(run.stderr).not.toContain("alternate between user and model");
		expect(run.stdout).toContain("Tests next.");
		expect(run.code).toBe(0);
		const contents = server.requests.at(-1)!.body.contents as SentContent[];
		expect(contents.map((content) => [content.role, content.parts.map((part) => part.text)])).toEqual([
			["user", ["hello"]],
			["model", ["Hi.", "Anything else?"]],
			["user", ["what next?"]],
		]);
		expect(readFileSync(file, "utf8").startsWith(before)).toBe(true);
	});
});
