/**
 * Programs that embed the SDK (`createAgentSession`, `session.dispose()`), replayed from reports
 * by such hosts.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "xstate";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createTestResourceLoader } from "../../src/resources/test-loader.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { cliBundle } from "../cli/cli-bundle.js";
import { diskSession, removeTempDirs } from "./disk-harness.js";
import { persistedRoles } from "./helpers.js";

let dir: string;
let agentDir: string;
let faux: FauxProvider;
let modelRuntime: InMemoryModelRuntime;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-sdk-embed-"));
	agentDir = join(dir, "agent");
	mkdirSync(agentDir);
	faux = createFauxProvider({ models: [{ id: "faux-1" }] });
	modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

/** A host script's start: `session`, file-backed in `dir`, on a faux model answering `answer`; then `rest`. */
/**
 * The host scripts import the bundled package (test/cli/cli-bundle.ts, what npm ships) under plain
 * `node`: through tsx each spent ~1 s of CPU loading Settle's sources. `SETTLE_TEST_CLI=sources`
 * keeps the sources.
 */
const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";
const SETTLE_BUNDLE = () => join(dirname(cliBundle()), "index.js");
/** How to run host script `script` (written with {@link hostScript}). */
const hostArgs = (script: string): string[] => (FROM_SOURCES ? ["--import", "tsx", script] : [script]);
/** The host script's file name: TypeScript for tsx, plain ESM for node. */
const hostFile = (name: string): string => join(dir, `${name}.${FROM_SOURCES ? "mts" : "mjs"}`);

function hostScript(answer: string, rest: string): string {
	const src = resolve(import.meta.dirname, "../../src");
	const from = (file: string) => (FROM_SOURCES ? join(src, file) : SETTLE_BUNDLE());
	return `import { createFauxProvider, fauxAssistantMessage } from ${JSON.stringify(from("llm/faux.ts"))};
import { InMemoryModelRuntime } from ${JSON.stringify(from("llm/model-runtime.ts"))};
import { createAgentSession } from ${JSON.stringify(from("runtime/sdk.ts"))};
import { SettingsManager } from ${JSON.stringify(from("settings/settings-manager.ts"))};
const faux = createFauxProvider({ models: [{ id: "faux-1" }] });
const modelRuntime = new InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);
faux.setResponses([fauxAssistantMessage(${JSON.stringify(answer)})]);
const { session } = await createAgentSession({
	cwd: ${JSON.stringify(dir)},
	agentDir: ${JSON.stringify(agentDir)},
	modelRuntime,
	settingsManager: SettingsManager.inMemory(),
});
${rest}`;
}

/** An in-memory SDK session in `dir` on the faux model, with one inline extension. */
function inMemorySessionWith(
	extension: (pi: ExtensionAPI) => void,
	options: Partial<Parameters<typeof createAgentSession>[0]> = {},
) {
	return createAgentSession({
		cwd: dir,
		agentDir,
		modelRuntime,
		settingsManager: SettingsManager.inMemory(),
		sessionManager: SessionManager.inMemory(dir),
		resourceLoader: createTestResourceLoader({ extensionFactories: [extension] }),
		...options,
	});
}

function alive(child: ChildProcess): boolean {
	return child.exitCode === null && child.signalCode === null;
}

describe("pi-web#546, pi-subagents#170: session.dispose() of an SDK session left the extension's child process running", () => {
	it("an extension that started a child at session_start hears session_shutdown{quit} on dispose and reaps it", async () => {
		const heard: string[] = [];
		let child: ChildProcess | undefined;
		const server = (pi: ExtensionAPI) => {
			pi.on("session_start", () => {
				heard.push("session_start");
				child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
			});
			pi.on("session_shutdown", (event) => {
				heard.push(`session_shutdown:${event.reason}`);
				child?.kill("SIGTERM");
			});
		};
		const { session } = await inMemorySessionWith(server);
		await session.bindExtensions({});
		faux.setResponses([fauxAssistantMessage("hi")]);
		await session.prompt("hello");
		expect(child && alive(child)).toBe(true);
		const exited = new Promise((resolve) => child?.once("exit", resolve));
		session.dispose();
		expect(heard).toEqual(["session_start", "session_shutdown:quit"]);
		await exited;
		expect(alive(child!)).toBe(false);
	});

	it("a session_shutdown handler that awaits pi.exec to clean up on session.dispose() gets the program's whole run (programs still running are ended only after the handlers)", async () => {
		const cleaned = join(dir, "cleaned");
		let result: { code: number; killed: boolean } | undefined;
		const cleanup = (pi: ExtensionAPI) => {
			pi.on("session_shutdown", async () => {
				// The program outlives the handler's start by a few scheduler turns: it must not be ended then.
				const run = await pi.exec("sh", ["-c", `sleep 0.2; echo done > ${JSON.stringify(cleaned)}`]);
				result = { code: run.code, killed: run.killed };
			});
		};
		const { session } = await inMemorySessionWith(cleanup);
		await session.bindExtensions({});
		await session.dispose();
		expect(result).toEqual({ code: 0, killed: false });
		expect(readFileSync(cleaned, "utf8")).toBe("done\n");
	});
});

describe("pi#8025: one throwing subscribe() listener starved the later listeners and failed the run", () => {
	it("the later listener hears every event, prompt() resolves, the answer is saved; the failure is a LISTENER warning", async () => {
		const warnings: Error[] = [];
		const onWarning = (warning: Error) => warnings.push(warning);
		process.on("warning", onWarning);
		const file = join(dir, "sessions");
		try {
			const { session } = await createAgentSession({
				cwd: dir,
				agentDir,
				modelRuntime,
				settingsManager: SettingsManager.inMemory(),
				sessionManager: SessionManager.create(dir, file),
			});
			const first: string[] = [];
			const later: string[] = [];
			session.subscribe((event: AgentSessionEvent) => {
				first.push(event.type);
				throw new Error(`listener broke on ${event.type}`);
			});
			session.subscribe((event: AgentSessionEvent) => later.push(event.type));
			faux.setResponses([fauxAssistantMessage("the answer")]);
			await expect(session.prompt("hello")).resolves.toBeUndefined();
			for (const type of ["agent_start", "message_end", "agent_end", "agent_settled"]) expect(later).toContain(type);
			expect(later).toEqual(first);
			expect(session.messages.map((message) => message.role).filter((role) => role !== "system")).toEqual([
				"user",
				"assistant",
			]);
			const sessionFile = session.sessionFile!;
			session.dispose();
			expect(persistedRoles(sessionFile)).toEqual(["user", "assistant"]);
			await new Promise((done) => setImmediate(done));
			expect(warnings.map((warning) => (warning as { code?: string }).code)).toContain("LISTENER");
		} finally {
			process.off("warning", onWarning);
		}
	});
});

describe("pi-coding-agent-action#394, pi#4391: a one-shot SDK script stayed alive after its answer", () => {
	it("a script that prompts a file-backed session and never disposes it exits 0 on its own, the file complete", () => {
		const script = hostFile("one-shot");
		writeFileSync(
			script,
			hostScript(
				"the review",
				`await session.prompt("review this");
const last = session.messages.at(-1);
console.log(JSON.stringify({ file: session.sessionFile, answer: last?.role === "assistant" ? last.content : undefined }));
// no session.dispose(): the host forgot it, as in the reports
`,
			),
		);
		const result = spawnSync(process.execPath, hostArgs(script), {
			cwd: resolve(import.meta.dirname, "../.."),
			encoding: "utf8",
			// A process kept alive by the session is killed here (status null) instead of hanging the suite.
			timeout: 60_000,
		});
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const printed = JSON.parse(result.stdout.trim()) as { file: string; answer: { text: string }[] };
		expect(printed.answer.map((block) => block.text)).toEqual(["the review"]);
		expect(persistedRoles(printed.file)).toEqual(["user", "assistant"]);
		expect(readdirSync(join(printed.file, "..")).filter((name) => name.endsWith(".lock"))).toEqual([]);
	});
});

describe("pi#3425: a saved answer without usage (or with part of it) after a compaction made the stats throw", () => {
	for (const [label, usage] of [
		["missing", undefined],
		["partial", { output: 42 }],
	] as const) {
		it(`usage ${label}: getContextUsage() and getSessionStats() answer with numbers, and the session prompts on`, async () => {
			const model = faux.getModel("faux-1")!;
			const sessionDir = join(dir, "sessions");
			const writer = SessionManager.create(dir, sessionDir);
			const answer = (text: string, answerUsage: unknown) =>
				({
					role: "assistant",
					content: [{ type: "text", text }],
					api: model.api,
					provider: model.provider,
					model: model.id,
					stopReason: "stop",
					timestamp: Date.now(),
					...(answerUsage === undefined ? {} : { usage: answerUsage }),
				}) as never;
			writer.appendMessage({ role: "user", content: [{ type: "text", text: "first" }], timestamp: Date.now() });
			writer.appendMessage(answer("one", fauxAssistantMessage("one").usage));
			const kept = writer.appendMessage({
				role: "user",
				content: [{ type: "text", text: "second" }],
				timestamp: Date.now(),
			});
			writer.appendCompaction("summary of the start", kept, 1000);
			writer.appendMessage(answer("two", usage));
			const file = writer.getSessionFile()!;
			writer.close();

			const { session } = await createAgentSession({
				cwd: dir,
				agentDir,
				modelRuntime,
				model,
				settingsManager: SettingsManager.inMemory(),
				sessionManager: SessionManager.open(file),
			});
			try {
				const context = session.getContextUsage();
				expect(context?.contextWindow).toBeGreaterThan(0);
				for (const value of [context?.tokens, context?.percent]) {
					if (value !== null) expect(Number.isFinite(value)).toBe(true);
				}
				const stats = session.getSessionStats();
				for (const value of [...Object.values(stats.tokens), stats.cost, stats.cumulative.cost])
					expect(Number.isFinite(value)).toBe(true);
				expect(Object.values(stats.cumulative.tokens).every(Number.isFinite)).toBe(true);
				faux.setResponses([fauxAssistantMessage("three")]);
				await session.prompt("third");
				expect(session.getLastAssistantText()).toBe("three");
				expect(Number.isFinite(session.getSessionStats().tokens.total)).toBe(true);
			} finally {
				session.dispose();
				session.sessionManager.close();
			}
		});
	}
});

describe("session.dispose() did not wait for async session_shutdown handlers: a host that exited right after lost what they wrote", () => {
	it("a script that awaits session.dispose() and exits at once keeps the log line an extension appends after an await", () => {
		const log = join(dir, "flushed.log");
		mkdirSync(join(agentDir, "extensions"));
		writeFileSync(
			join(agentDir, "extensions", "flush-log.ts"),
			`import { appendFile } from "node:fs/promises";
export default function (pi) {
	pi.on("session_shutdown", async (event) => {
		await new Promise((resolve) => setTimeout(resolve, 50));
		await appendFile(${JSON.stringify(log)}, "flushed on " + event.reason + "\\n");
	});
}
`,
		);
		const script = hostFile("dispose-and-exit");
		writeFileSync(
			script,
			hostScript(
				"done",
				`await session.bindExtensions({});
await session.prompt("hello");
const undelivered = await session.dispose();
console.log(JSON.stringify({ undelivered, isArray: Array.isArray(undelivered) }));
process.exit(0);
`,
			),
		);
		const result = spawnSync(process.execPath, hostArgs(script), {
			cwd: resolve(import.meta.dirname, "../.."),
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		expect(JSON.parse(result.stdout.trim())).toEqual({ undelivered: [], isArray: true });
		expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("flushed on quit\n");
	});

	it("a handler that never returns holds `await session.dispose()` only shutdownTimeoutMs, then it is reported by extension", async () => {
		const clock = new SimulatedClock();
		const errors: string[] = [];
		const hang = (pi: ExtensionAPI) => {
			pi.on("session_shutdown", () => new Promise<void>(() => {}));
		};
		const { session } = await inMemorySessionWith(hang, { clock, shutdownTimeoutMs: 5_000 });
		await session.bindExtensions({ onError: (error) => errors.push(`${error.event}: ${error.error}`) });
		let resolved = false;
		const disposed = session.dispose().then((messages) => {
			resolved = true;
			return messages;
		});
		await new Promise((resolve) => setImmediate(resolve));
		expect(resolved).toBe(false);
		clock.increment(5_000);
		await expect(disposed).resolves.toEqual([]);
		expect(errors).toEqual([
			expect.stringMatching(
				/^session_shutdown: session_shutdown handler did not finish within 5000 ms; the dispose went on/,
			),
		]);
	});
});

describe("KurrentDB-Client-Dotnet#138: a disposed subscription still raised the events that arrived after it", () => {
	it("a host that disposes the session from its listener mid-answer hears nothing more, the transport is told to stop, and the answer streamed after dispose is not written", async () => {
		const host = await diskSession();
		try {
			const { session, provider } = host;
			const heard: string[] = [];
			// The user closes the tab at the answer's first words: the host's listener disposes the session.
			session.subscribe((event) => {
				heard.push(event.type);
				if (event.type === "message_update") session.dispose();
			});
			const after: string[] = [];
			session.subscribe((event) => after.push(event.type));
			const prompt = session.prompt("summarize the log").catch((error: unknown) => error);
			const request = await provider.next();
			request.beginText("The log shows");
			expect(await prompt).toMatchObject({ code: "SESSION_CLOSED" });
			expect(request.signal?.aborted).toBe(true);
			const file = session.sessionFile!;
			const savedAtDispose = readFileSync(file, "utf8");
			const heardAtDispose = [...heard];
			// The transport ignores the abort and streams the rest of the answer anyway.
			request.stream.push({
				type: "text_delta",
				contentIndex: 0,
				delta: " three failures.",
				partial: provider.reply("The log shows three failures."),
			});
			request.finish(provider.reply("The log shows three failures."));
			// The detached run has ended (its last event handled) before anything is compared.
			await session.agent.waitForIdle();
			expect(heard).toEqual(heardAtDispose);
			expect(heard.at(-1)).toBe("message_update");
			// The listener after the disposing one still heard the event being delivered, nothing later.
			expect(after).toEqual(heard);
			expect(readFileSync(file, "utf8")).toBe(savedAtDispose);
			expect(persistedRoles(file)).toEqual(["user"]);
		} finally {
			host.cleanup();
			removeTempDirs();
		}
	});
});
