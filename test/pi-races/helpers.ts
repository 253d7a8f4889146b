/**
 * Helpers for the pi race replays: a gate released from outside, the user texts of the session
 * file on disk, and per-operation counts read from the public event stream.
 */
import { spawnSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { afterEach, expect, onTestFinished } from "vitest";
import type { AgentTool } from "../../src/agent/types.js";
import { SUMMARIZATION_SYSTEM_PROMPT } from "../../src/compaction/prompts.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { ModelRuntime } from "../../src/llm/model-runtime.js";
import { loadPiAi, PiAiModelRuntime } from "../../src/llm/pi-ai.js";
import type { AgentMessage, Model, ThinkingLevel } from "../../src/llm/types.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { AuthStorage } from "../../src/runtime/auth-storage.js";
import { type CreateAgentSessionResult, createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import type { Settings } from "../../src/settings/schema.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { type CliProject, RpcClient, runSettle, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { anthropicError } from "../llm/wire/anthropic.js";
import { chatReply } from "../llm/wire/openai.js";
import { type RecordedRequest, type Reply, type Router, startWireServer, type WireServer } from "../llm/wire/server.js";
import { API_KEY, type WireApi, wireModel } from "../llm/wire/session.js";
import { type Answer, BIG_ANSWER, type ScriptOptions, script } from "../session/recovery-helpers.js";

export { comparable, reopenedContext, tick } from "../session/helpers.js";
export {
	type Answer,
	BIG_ANSWER,
	errorReply,
	gate,
	OVERLOADED,
	overflowReply,
	recoveryLabels,
	SMALL_WINDOW,
	script,
	THRESHOLD_SETTINGS,
	userTexts,
} from "../session/recovery-helpers.js";

/** The text of a user message (undefined for other roles). */
/**
 * A `run_tests` tool that calls `started`, then runs until `finish` is released or the run is
 * aborted, and answers "412 passed": the window in which the queue tests send their messages.
 */
export function gatedTool(started: () => void, finish: Promise<void>): AgentTool {
	return {
		name: "run_tests",
		label: "run_tests",
		description: "runs the test suite",
		parameters: { type: "object", properties: {} } as never,
		execute: async (_id, _args, signal) => {
			started();
			await Promise.race([
				finish,
				new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true })),
			]);
			return { content: [{ type: "text", text: "412 passed" }], details: {} };
		},
	};
}

export function textOf(message: AgentMessage): string | undefined {
	if (message.role !== "user") return undefined;
	return typeof message.content === "string"
		? message.content
		: message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** Each tool result the model received in `harness`'s session, in call order: error flag and text. */
export function toolResultTexts(harness: Harness): { isError: boolean; text: string }[] {
	return harness.session.messages.flatMap((message) =>
		message.role === "toolResult"
			? [
					{
						isError: message.isError,
						text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
					},
				]
			: [],
	);
}

/**
 * One model `bash` call with `args` in `harness`'s session, then the answer "done": the call's
 * result (error flag, text, details) once the turn has ended.
 */
export async function modelBashCall(
	harness: Harness,
	args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string; details: unknown }> {
	script(harness, [
		fauxAssistantMessage([fauxToolCall("bash", args)], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("run it");
	const last = harness.session.messages.at(-1);
	if (last?.role !== "assistant" || last.content[0]?.type !== "text" || last.content[0].text !== "done") {
		throw new Error("the turn did not end with the scripted answer");
	}
	const result = harness.session.messages.find((message) => message.role === "toolResult");
	if (result?.role !== "toolResult") throw new Error("no tool result");
	const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
	return { isError: result.isError, text, details: result.details };
}

/**
 * For a test file's top level: `bashCall(command)` is one {@link modelBashCall} of `command` in a
 * fresh harness with the bash tool, cleaned up after the test.
 */
export function bashCallsPerTest(): (command: string) => ReturnType<typeof modelBashCall> {
	let h: Harness | undefined;
	afterEach(() => {
		h?.cleanup();
		h = undefined;
	});
	return async (command) => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		return modelBashCall(h, { command });
	};
}

/** A `tool_execution_end` event as a `--mode json` run prints it. */
export interface ToolEnd {
	type: "tool_execution_end";
	toolName: string;
	isError: boolean;
	result: { content: { type: string; text?: string }[] };
}

/** The `tool_execution_end` events of a `--mode json` run's stdout, in the order they came. */
export function toolEnds(stdout: string): ToolEnd[] {
	return stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { type: string })
		.filter((event): event is ToolEnd => event.type === "tool_execution_end");
}

/** Every line of a session JSONL file, parsed. */
export function fileEntries(file: string): { type: string; message?: AgentMessage; customType?: string }[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line));
}

/** The user texts persisted in a session file, in file order. */
export function persistedUserTexts(file: string): string[] {
	return fileEntries(file).flatMap((entry) => {
		const text = entry.type === "message" && entry.message ? textOf(entry.message) : undefined;
		return text === undefined ? [] : [text];
	});
}

/** How often `text` was persisted as a user message. */
export function timesPersisted(file: string, text: string): number {
	return persistedUserTexts(file).filter((persisted) => persisted === text).length;
}

/** The roles of the persisted messages (custom messages as `custom:<type>`), in file order. */
export function persistedRoles(file: string): string[] {
	return fileEntries(file).flatMap((entry) => {
		if (entry.type === "custom_message") return [`custom:${entry.customType}`];
		if (entry.type !== "message" || !entry.message) return [];
		return entry.message.role === "system" ? [] : [entry.message.role];
	});
}

/** Waits until `condition` holds, a bounded number of event-loop turns (throws naming `what` otherwise). */
export async function until(h: Harness, condition: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 5000 && !condition(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
	if (!condition()) throw new Error(`never happened: ${what} (lifecycle ${h.session.lifecycle})`);
}

/** Logs every session lifecycle event it hears, with the session file it was loaded for (pi-peer uses it too). */
export const LIFECYCLE_LOG = (log: string) => `import { appendFileSync } from "node:fs";
import { basename } from "node:path";
export default function (pi) {
	const write = (line) => appendFileSync(${JSON.stringify(log)}, line + "\\n");
	pi.on("session_start", (event, ctx) => write("start " + event.reason + " " + basename(ctx.sessionManager.getSessionFile() ?? "none")));
	pi.on("session_shutdown", (event, ctx) => write("shutdown " + event.reason + " " + basename(ctx.sessionManager.getSessionFile() ?? "none")));
}
`;

/**
 * The pi-extensions#31 extension source (pi-codex-compaction's pattern): abort from the first
 * turn_end, compact, then continue from the compaction's onComplete; writes to `log`.
 */
export const ABORT_COMPACT_CONTINUE = (log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	const write = (line) => appendFileSync(${JSON.stringify(log)}, line + "\\n");
	let done = false;
	pi.on("turn_end", (_event, ctx) => {
		if (done) return;
		done = true;
		ctx.abort();
		ctx.compact({
			onComplete: () => {
				write("compacted");
				pi.sendUserMessage("Compaction completed. Continue.");
			},
			onError: (error) => write("compaction failed: " + error.message),
		});
	});
	pi.on("session_shutdown", () => write("shutdown"));
}
`;

/**
 * `settle --mode json -p go` on the faux script `steps`, with `retry` as the agent folder's retry
 * settings, no session file: its exit code, the JSON events it printed, its stderr. The 60 s
 * timeout only guards against a hang (each run takes about a second): a hung run's code is null.
 */
export function runJsonScript(
	cli: CliProject,
	steps: unknown[],
	retry: Record<string, unknown>,
): { code: number | null; events: Record<string, unknown>[]; stderr: string } {
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry }));
	const file = join(cli.dir, "script.json");
	writeFileSync(file, JSON.stringify(steps));
	const run = runSettle(["--faux-script", file, "--no-session", "--mode", "json", "-p", "go"], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		timeoutMs: 60_000,
	});
	const events = run.stdout
		.trim()
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line) as Record<string, unknown>);
	return { code: run.code, events, stderr: run.stderr };
}

/**
 * A tool `dump_log` that prints about 3000 tokens of build log per call: one result is under a
 * 4000-token `keepRecentTokens`, two are over (the compaction replays' long tool-using turns).
 */
export const dumpLog: AgentTool = {
	name: "dump_log",
	label: "dump_log",
	description: "prints a build log",
	parameters: { type: "object", properties: { name: { type: "string" } } } as never,
	execute: async () => ({ content: [{ type: "text", text: "log line of a long build\n".repeat(500) }], details: {} }),
};

/** A tool that blocks until its run is aborted, then returns a result (it honours the signal). */
export function blockingTool(onStart: () => void): AgentTool {
	return {
		name: "wait_for_ci",
		label: "wait_for_ci",
		description: "waits for the CI run to finish",
		parameters: { type: "object", properties: {} } as never,
		execute: (_id, _params, signal) =>
			new Promise((resolve) => {
				onStart();
				const done = () => resolve({ content: [{ type: "text", text: "CI wait stopped" }], details: {} });
				if (!signal || signal.aborted) done();
				else signal.addEventListener("abort", done, { once: true });
			}),
	};
}

/** Every session file under `<agentDir>/sessions/` ([] before any session is written). */
export function sessionFilesUnder(agentDir: string): string[] {
	const root = join(agentDir, "sessions");
	if (!existsSync(root)) return [];
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(root, name));
}

/**
 * Runs `settle --faux --json <args> <prompt>` in `cli`'s project (with `env` added), expects exit 0,
 * and returns the session it wrote to (new, or continued with `-c`): its id and file.
 */
export function savedSession(
	cli: CliProject,
	prompt: string,
	options: { args?: string[]; env?: Record<string, string> } = {},
): { id: string; file: string } {
	const run = runSettle(["--faux", "--json", ...(options.args ?? []), prompt], {
		cwd: cli.project,
		agentDir: cli.agentDir,
		env: options.env,
	});
	expect(run.code).toBe(0);
	const header = JSON.parse(run.stdout.split("\n")[0]!) as { type: string; id: string };
	expect(header.type).toBe("session");
	const file = sessionFilesUnder(cli.agentDir).find((path) => path.endsWith(`_${header.id}.jsonl`));
	if (!file) throw new Error(`no file for session ${header.id} under ${cli.agentDir}`);
	return { id: header.id, file };
}

/**
 * Makes `file` (or a folder) write-protected for this process: mode 0444 (a folder 0555), and
 * for root (whom modes do not stop) the immutable attribute. Returns the undo, which must run before the folder can be removed.
 */
export function writeProtect(file: string): () => void {
	const mode = statSync(file).mode & 0o777;
	chmodSync(file, statSync(file).isDirectory() ? 0o555 : 0o444);
	const root = process.getuid?.() === 0;
	if (root) {
		const set = spawnSync("chattr", ["+i", file], { encoding: "utf8" });
		if (set.status !== 0) throw new Error(`chattr +i failed: ${set.stderr}`);
	}
	return () => {
		if (root) spawnSync("chattr", ["-i", file]);
		chmodSync(file, mode);
	};
}

/** Writes an extension file `name` in `dir` whose factory body is `body` (`pi` in scope); returns its path. */
export function writeExtension(dir: string, name: string, body: string): string {
	const path = join(dir, name);
	writeFileSync(path, `export default function (pi) {\n${body}\n}\n`);
	return path;
}

/**
 * Opens `sessionManager`'s session through the SDK in `dir` as a script would: in-memory `settings`,
 * a resource loader without extensions, the given `model` and `thinkingLevel` if any.
 */
export async function openSdkSession(
	where: { dir: string; agentDir: string },
	modelRuntime: ModelRuntime,
	sessionManager: SessionManager,
	options: { settings?: Partial<Settings>; model?: Model; thinkingLevel?: ThinkingLevel } = {},
): Promise<CreateAgentSessionResult> {
	const { dir, agentDir } = where;
	const { settings, ...picked } = options;
	const settingsManager = SettingsManager.inMemory(settings);
	const resourceLoader = new DefaultResourceLoader({ cwd: dir, agentDir, settingsManager, noExtensions: true });
	await resourceLoader.reload();
	return createAgentSession({
		cwd: dir,
		agentDir,
		modelRuntime,
		settingsManager,
		resourceLoader,
		sessionManager,
		...picked,
	});
}

/** Writes the extension `source` as `name` in `cli.dir` and starts `settle --rpc --faux --no-session -e` on it. */
export function rpcOnExtension(cli: CliProject, name: string, source: string): RpcClient {
	const extension = join(cli.dir, name);
	writeFileSync(extension, source);
	return new RpcClient(["--faux", "--no-session", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
}

/**
 * Writes `ext-provider.mjs` in `dir`: an extension registering provider `ext` (key `ext-key`, one
 * OpenAI-style model `m1`) served at `baseUrl`; returns its path.
 */
export function writeExtProviderExtension(dir: string, baseUrl: string): string {
	return writeExtension(
		dir,
		"ext-provider.mjs",
		`pi.registerProvider("ext", {
	baseUrl: ${JSON.stringify(baseUrl)},
	apiKey: "ext-key",
	api: "openai-completions",
	models: [{ id: "m1", name: "M1", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
});`,
	);
}

/** The context meter `get_session_stats` answers with. */
export interface ContextUsage {
	tokens: number | null;
	percent: number | null;
	contextWindow: number;
}

/** Sends `message` as the RPC prompt `id`, checks it was accepted, and waits until the run settles. */
export async function rpcPrompt(client: RpcClient, id: string, message: string): Promise<void> {
	const settled = client.next((line) => line.type === "agent_settled");
	expect(await client.request({ id, type: "prompt", message })).toMatchObject({ success: true });
	await settled;
}

/** The context meter `get_session_stats`, sent as request `id`, reports. */
export async function rpcContextUsage(client: RpcClient, id: string): Promise<ContextUsage | undefined> {
	return ((await client.request({ id, type: "get_session_stats" })) as { data: { contextUsage?: ContextUsage } }).data
		.contextUsage;
}

/** Whether an OpenAI-chat request is a compaction's summary request (its system text is the summarizer's). */
export function isChatSummaryRequest(request: RecordedRequest): boolean {
	return JSON.stringify(request.body?.messages ?? "").includes(SUMMARIZATION_SYSTEM_PROMPT.slice(0, 40));
}

/**
 * Prompts "first" (answered "short") and "second" (answered `BIG_ANSWER`, over an 8000-token window's
 * threshold with `THRESHOLD_SETTINGS`): the threshold compaction after it fails when `summary(1)`
 * does. `later` answers the prompts after those. Returns the script's requests.
 */
export async function promptOverThreshold(h: Harness, summary: ScriptOptions["summary"], later: readonly Answer[]) {
	const requests = script(h, [fauxAssistantMessage("short"), fauxAssistantMessage(BIG_ANSWER), ...later], { summary });
	await h.session.prompt("first");
	await h.session.prompt("second");
	return requests;
}

/** How many compaction entries the one session file in `sessionDir` holds. */
export function compactionsIn(sessionDir: string): number {
	const [file] = readdirSync(sessionDir);
	return readFileSync(join(sessionDir, file!), "utf8")
		.trim()
		.split("\n")
		.filter((line) => JSON.parse(line).type === "compaction").length;
}

/**
 * Per prompt of the one session file in `sessionDir` (its user messages, in order): whether a
 * compaction entry was written during its run (after it, before the next prompt), and the text of
 * its last answer. One multi-prompt `settle -p` replays what one `settle -p -c` per prompt did.
 */
export function promptsIn(sessionDir: string): { compacted: boolean; answer: string | undefined }[] {
	const [file] = readdirSync(sessionDir);
	const prompts: { compacted: boolean; answer: string | undefined }[] = [];
	for (const entry of fileEntries(join(sessionDir, file!))) {
		const current = prompts.at(-1);
		if (entry.type === "compaction" && current) current.compacted = true;
		if (entry.type !== "message" || !entry.message) continue;
		if (entry.message.role === "user") prompts.push({ compacted: false, answer: undefined });
		else if (entry.message.role === "assistant" && current) {
			current.answer = entry.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
		}
	}
	return prompts;
}

/**
 * `settle -i` in `cli`'s project on `server`'s local `coder` model (100,000-token window), once
 * "first question" and "second question" got "first answer" (40,100 context tokens) and "second
 * answer" (80,200); `later` are the server's next replies.
 */
export async function replAfterTwoAnswers(cli: CliProject, server: WireServer, ...later: Reply[]): Promise<Repl> {
	writeLocalProvider(cli.agentDir, `${server.url}/v1`, { models: [{ id: "coder", contextWindow: 100_000 }] });
	server.reply(
		chatReply([{ type: "text", text: "first answer" }], { usage: { prompt: 40_000, completion: 100 } }),
		chatReply([{ type: "text", text: "second answer" }], { usage: { prompt: 80_000, completion: 200 } }),
		...later,
	);
	const chat = new Repl(["--model", "local/coder"], { cwd: cli.project, agentDir: cli.agentDir });
	await chat.idle(0);
	await chat.say("first question", "first answer");
	await chat.say("second question", "second answer");
	return chat;
}

/** A model a {@link WireProject} serves (its name is its id unless given). */
export interface WireModelSpec {
	api: WireApi;
	provider: string;
	id: string;
	name?: string;
	input?: ("text" | "image")[];
}

/** Models of several providers on one local server, and sessions on them in one project folder. */
export interface WireProject {
	server: WireServer;
	/** The project folder: the built-in tools run there; the JSONL files sit under `sessions/`. */
	dir: string;
	model(spec: WireModelSpec): Model;
	/** A session on `spec` (undefined: no `model` given, a resumed session restores its own). */
	open(spec: WireModelSpec | undefined, sessionManager?: SessionManager): Promise<AgentSession>;
}

/**
 * Opens {@link WireProject}s for the tests of one file: each test's sessions are disposed, then its
 * server closed and its folder removed, after it. Sessions run with `thinkingLevel`, no retry, and
 * `settings`; `route` answers before the replies queued on the server (a provider's checks).
 */
export function wireProjectsPerTest(
	prefix: string,
	thinkingLevel: ThinkingLevel,
): (
	specs: readonly WireModelSpec[],
	options?: { route?: Router; settings?: Partial<Settings> },
) => Promise<WireProject> {
	const cleanups: (() => Promise<void> | void)[] = [];
	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
	});
	return async (specs, options = {}) => {
		const server = await startWireServer(options.route);
		const dir = mkdtempSync(join(tmpdir(), prefix));
		cleanups.push(async () => {
			await server.close();
			rmSync(dir, { recursive: true, force: true });
		});
		const runtime = new PiAiModelRuntime(await loadPiAi(async () => piAi), {
			providers: [],
			useEnvironment: false,
			credentials: AuthStorage.inMemory(Object.fromEntries(specs.map((spec) => [spec.provider, API_KEY]))),
		});
		for (const provider of new Set(specs.map((spec) => spec.provider))) {
			const models = specs
				.filter((spec) => spec.provider === provider)
				.map((spec) =>
					wireModel(spec.api, server.url, {
						id: spec.id,
						name: spec.name ?? spec.id,
						provider,
						input: spec.input ?? ["text"],
					}),
				);
			runtime.registerPiAiProvider(provider, models, { defaultModelId: models[0]!.id });
		}
		const model = (spec: WireModelSpec): Model => {
			const found = runtime.getModel(spec.provider, spec.id);
			if (!found) throw new Error(`no model ${spec.provider}/${spec.id}`);
			return found;
		};
		const open = async (
			spec: WireModelSpec | undefined,
			sessionManager = SessionManager.create(dir, join(dir, "sessions")),
		) => {
			const { session } = await createAgentSession({
				cwd: dir,
				agentDir: dir,
				modelRuntime: runtime,
				...(spec ? { model: model(spec) } : {}),
				thinkingLevel,
				settingsManager: SettingsManager.inMemory({ retry: { enabled: false }, ...options.settings }),
				sessionManager,
			});
			cleanups.push(() => {
				session.dispose();
			});
			return session;
		};
		return { server, dir, model, open };
	};
}

/** A `bash` call `id` running `command`, as a Chat Completions reply ({@link chatReply}) carries it. */
export function chatBashCall(id: string, command: string) {
	return { type: "tool_call" as const, id, name: "bash", arguments: { command } };
}

/** A content block of a Messages API request, the fields the replays read. */
export type SentBlock = {
	type: string;
	id?: string;
	tool_use_id?: string;
	content?: unknown;
	input?: { command?: string };
};

/** The content blocks of a Messages API request, in order (a message whose content is a string has none). */
export function sentBlocks(request: RecordedRequest): SentBlock[] {
	return (request.body.messages as { content: SentBlock[] | string }[]).flatMap((message) =>
		typeof message.content === "string" ? [] : message.content,
	);
}

/** The content of each `tool_result` among `blocks` sent under `id`, as JSON. */
export function resultsUnder(blocks: SentBlock[], id: string): string[] {
	return blocks
		.filter((block) => block.type === "tool_result" && block.tool_use_id === id)
		.map((block) => JSON.stringify(block.content));
}

/**
 * Anthropic's 400 for a Messages API request whose `tool_use` ids break its pattern or repeat one
 * another anywhere in the request; undefined when each is fine.
 */
export function anthropicIdRefusal(request: RecordedRequest): ReturnType<typeof anthropicError> | undefined {
	const seen = new Set<string>();
	for (const [i, message] of (request.body.messages as { content: SentBlock[] | string }[]).entries()) {
		if (typeof message.content === "string") continue;
		for (const [j, block] of message.content.entries()) {
			if (block.type !== "tool_use") continue;
			if (!/^[a-zA-Z0-9_-]+$/.test(block.id!)) {
				return anthropicError(
					400,
					"invalid_request_error",
					`messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`,
				);
			}
			if (seen.has(block.id!)) {
				return anthropicError(
					400,
					"invalid_request_error",
					`messages.${i}.content.${j}: \`tool_use\` ids must be unique`,
				);
			}
			seen.add(block.id!);
		}
	}
	return undefined;
}

/** A Chat Completions message as the replays read it: its tool calls, or the call a result answers. */
export type SentChatMessage = {
	role: string;
	content?: unknown;
	tool_calls?: { id: string; function: { name: string; arguments: string } }[];
	tool_call_id?: string;
};

/** Each tool call a Chat Completions request replays: its id, its bash command, and the results sent under that id (JSON). */
export function replayedChatCalls(request: RecordedRequest): { id: string; command: string; results: string[] }[] {
	const messages = request.body.messages as SentChatMessage[];
	return messages
		.flatMap((message) => message.tool_calls ?? [])
		.map((call) => ({
			id: call.id,
			command: (JSON.parse(call.function.arguments) as { command: string }).command,
			results: messages
				.filter((message) => message.role === "tool" && message.tool_call_id === call.id)
				.map((message) => JSON.stringify(message.content)),
		}));
}

/**
 * After a failed compaction: the session file kept its bytes, followed only by the `usage` entry
 * recording what the summary answers cost when they were billed (none for a refused request).
 */
export function expectFileKeptButBilledUsage(file: string, bytesBefore: string, billed: boolean): void {
	const after = readFileSync(file, "utf8");
	expect(after.startsWith(bytesBefore)).toBe(true);
	const appended = after
		.slice(bytesBefore.length)
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
	expect(appended).toEqual(billed ? [expect.objectContaining({ type: "usage", kind: "compaction" })] : []);
}

/**
 * A fresh folder that `TMPDIR` names until the current test ends (then `TMPDIR` is restored and the
 * folder removed): where the bash tool writes its full-output files. `unusable`: `TMPDIR` names a
 * regular file in it instead, so nothing can be created "in" it (a full or unwritable /tmp).
 */
export function tempFolderForTest(prefix: string, options: { unusable?: boolean } = {}): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	const path = options.unusable ? join(dir, "tmp") : dir;
	if (options.unusable) writeFileSync(path, "a file, not a folder");
	const previous = process.env.TMPDIR;
	process.env.TMPDIR = path;
	onTestFinished(() => {
		if (previous === undefined) delete process.env.TMPDIR;
		else process.env.TMPDIR = previous;
		rmSync(dir, { recursive: true, force: true });
	});
	return path;
}
