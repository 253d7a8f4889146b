/**
 * Hosts that embed the SDK with their own tools, or several sessions in one process, replayed from
 * reports by such hosts: each session a real file, real built-in tools, real child processes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import { createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import { type CreateAgentSessionOptions, createAgentSession } from "../../src/runtime/sdk.js";
import type { AgentSessionEvent } from "../../src/session/events.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { anthropicError } from "../llm/wire/anthropic.js";
import { useWireSession } from "../llm/wire/session.js";
import { callToolThenPromptAgain, savedMessages, toolAnswering } from "./tool-turns.js";

let dir: string;

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "settle-sdk-tools-")));
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});
// After-hooks run last first: the session is disposed before the folder is removed.
const wireSession = useWireSession();

/** A file-backed SDK session in `cwd` on its own faux model, with `customTools`, recording its events. */
async function hostSession(cwd: string, customTools: CreateAgentSessionOptions["customTools"] = []) {
	const faux: FauxProvider = createFauxProvider({ models: [{ id: "faux-1" }] });
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const agentDir = join(cwd, ".agent");
	mkdirSync(agentDir, { recursive: true });
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		settingsManager: SettingsManager.inMemory(),
		sessionManager: SessionManager.create(cwd, join(cwd, ".sessions")),
		customTools,
	});
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => {
		events.push(event);
	});
	return { session, faux, events };
}

/** The `toolResult` messages saved in a session file, in order. */
function savedToolResults(file: string): Array<{ toolName: string; content: unknown; isError: boolean }> {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "message" && entry.message.role === "toolResult")
		.map((entry) => entry.message);
}

function resultText(event: AgentSessionEvent | undefined): string {
	if (event?.type !== "tool_execution_end") return "";
	const content = (event.result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
	return content.map((block) => block.text ?? "").join("");
}

describe("pi#3452: several SDK sessions in one process, each with its own cwd (pi chdirs the process on activation)", () => {
	it("two sessions prompted at once run bash and read in their own project; the process cwd is never moved", async () => {
		const before = process.cwd();
		const projects = ["alpha", "beta"].map((name) => {
			const cwd = join(dir, name);
			mkdirSync(cwd);
			writeFileSync(join(cwd, "note.txt"), `note of ${name}\n`);
			return cwd;
		});
		const hosts = await Promise.all(projects.map((cwd) => hostSession(cwd)));
		// Both sessions exist (the second was activated last): the process cwd is still the host's.
		expect(process.cwd()).toBe(before);
		for (const { faux } of hosts) {
			faux.setResponses([
				fauxAssistantMessage(
					[
						fauxToolCall("bash", { command: "pwd" }, { id: "pwd" }),
						fauxToolCall("read", { path: "note.txt" }, { id: "note" }),
					],
					{ stopReason: "toolUse" },
				),
				fauxAssistantMessage("done"),
			]);
		}
		await Promise.all(hosts.map(({ session }) => session.prompt("where are you?")));
		hosts.forEach(({ events }, index) => {
			const ends = events.filter((event) => event.type === "tool_execution_end");
			const name = index === 0 ? "alpha" : "beta";
			expect(resultText(ends.find((e) => e.type === "tool_execution_end" && e.toolCallId === "pwd")).trim()).toBe(
				projects[index],
			);
			expect(resultText(ends.find((e) => e.type === "tool_execution_end" && e.toolCallId === "note"))).toContain(
				`note of ${name}`,
			);
		});
		expect(process.cwd()).toBe(before);
		for (const { session } of hosts) await session.dispose();
	});

	it("an AgentSessionRuntime switched to another project's session runs its tools there; the process cwd stays the host's", async () => {
		const before = process.cwd();
		const [alpha, beta] = ["alpha", "beta"].map((name) => {
			const cwd = join(dir, name);
			mkdirSync(cwd);
			writeFileSync(join(cwd, "note.txt"), `note of ${name}\n`);
			return cwd;
		}) as [string, string];
		const agentDir = join(dir, ".agent");
		mkdirSync(agentDir);
		const faux = createFauxProvider({ models: [{ id: "faux-1" }] });
		const factory = createAgentSessionRuntimeFactory({
			modelRuntime: () => {
				const modelRuntime = new InMemoryModelRuntime();
				modelRuntime.registerFauxProvider(faux);
				return modelRuntime;
			},
			model: faux.getModel()!,
			thinkingLevel: "off",
			resourceLoaderOptions: { noExtensions: true, noSkills: true, noPromptTemplates: true, noContextFiles: true },
		});
		// A session of project beta, written to its file, for the runtime (started in alpha) to switch to.
		const betaManager = SessionManager.create(beta, join(dir, ".sessions"));
		const betaRuntime = await createAgentSessionRuntime(factory, { cwd: beta, agentDir, sessionManager: betaManager });
		faux.setResponses([fauxAssistantMessage("beta begins")]);
		await betaRuntime.session.prompt("start beta");
		const betaFile = betaRuntime.session.sessionFile!;
		await betaRuntime.dispose();

		const runtime = await createAgentSessionRuntime(factory, {
			cwd: alpha,
			agentDir,
			sessionManager: SessionManager.create(alpha, join(dir, ".sessions")),
		});
		expect(process.cwd()).toBe(before);
		await runtime.switchSession(betaFile);
		expect(runtime.session.cwd).toBe(beta);
		expect(process.cwd()).toBe(before);
		const events: AgentSessionEvent[] = [];
		runtime.session.subscribe((event) => {
			events.push(event);
		});
		faux.setResponses([
			fauxAssistantMessage(
				[
					fauxToolCall("bash", { command: "pwd" }, { id: "pwd" }),
					fauxToolCall("read", { path: "note.txt" }, { id: "note" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await runtime.session.prompt("where are you?");
		const ends = events.filter((event) => event.type === "tool_execution_end");
		expect(resultText(ends.find((e) => e.type === "tool_execution_end" && e.toolCallId === "pwd")).trim()).toBe(beta);
		expect(resultText(ends.find((e) => e.type === "tool_execution_end" && e.toolCallId === "note"))).toContain(
			"note of beta",
		);
		expect(process.cwd()).toBe(before);
		await runtime.dispose();
	});
});

describe("pi#279, pi#271: an SDK session whose cwd is not the process's: every built-in tool must work in the session's cwd", () => {
	it("write, edit, read, ls, find, grep and bash with relative paths all act in the session's project; nothing appears in process.cwd()", async () => {
		const project = join(dir, "project");
		mkdirSync(project);
		expect(process.cwd()).not.toBe(project);
		// A folder name of this test only: were a tool to use process.cwd(), it lands there and is removed.
		const notes = basename(dir);
		const outside = join(process.cwd(), notes);
		expect(existsSync(outside)).toBe(false);
		onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
		const { session, faux, events } = await hostSession(project);
		session.setActiveToolsByName(["read", "bash", "edit", "write", "grep", "find", "ls"]);
		faux.setResponses([
			fauxAssistantMessage(fauxToolCall("write", { path: `${notes}/plan.txt`, content: "step one\n" }, { id: "w" }), {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage(
				fauxToolCall(
					"edit",
					{ path: `${notes}/plan.txt`, edits: [{ oldText: "step one", newText: "step two" }] },
					{ id: "e" },
				),
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage(
				[
					fauxToolCall("read", { path: `${notes}/plan.txt` }, { id: "r" }),
					fauxToolCall("ls", { path: notes }, { id: "l" }),
					fauxToolCall("find", { pattern: "*.txt" }, { id: "f" }),
					fauxToolCall("grep", { pattern: "step two" }, { id: "g" }),
					fauxToolCall("bash", { command: `cat ${notes}/plan.txt && pwd` }, { id: "b" }),
				],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("done"),
		]);
		await session.prompt("plan it");
		const result = (id: string) =>
			resultText(events.find((event) => event.type === "tool_execution_end" && event.toolCallId === id));
		expect(readFileSync(join(project, notes, "plan.txt"), "utf8")).toBe("step two\n");
		expect(result("r")).toContain("step two");
		expect(result("l")).toContain("plan.txt");
		expect(result("f")).toContain(`${notes}/plan.txt`);
		expect(result("g")).toContain(`${notes}/plan.txt`);
		expect(result("b")).toBe(`step two\n${project}\n`);
		expect(existsSync(outside)).toBe(false);
		expect(events.filter((event) => event.type === "tool_execution_end" && event.isError)).toEqual([]);
		await session.dispose();
		session.sessionManager.close();
	});
});

describe("pi#4413, pi#6678, pi#9147: a custom tool whose result has no content array", () => {
	it("{ isError: true } alone is saved as an error result with empty content; context usage answers and the session prompts on", async () => {
		const { session, faux, events } = await hostSession(dir, [
			{
				name: "status",
				label: "Status",
				description: "reports the project status",
				parameters: { type: "object", properties: {} } as never,
				execute: async () => ({ isError: true }) as never,
			},
		]);
		faux.setResponses([
			fauxAssistantMessage(fauxToolCall("status", {}, { id: "s1" }), { stopReason: "toolUse" }),
			fauxAssistantMessage("the status tool failed"),
			fauxAssistantMessage("still here"),
		]);
		await session.prompt("status?");
		const end = events.find((event) => event.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "s1", isError: true, result: { content: [] } });
		expect(() => session.getContextUsage()).not.toThrow();
		await session.prompt("and now?");
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		const saved = savedToolResults(session.sessionFile!);
		expect(saved).toEqual([expect.objectContaining({ toolName: "status", content: [], isError: true })]);
		// The saved file reopens into a session that answers (pi's `content is not iterable` on resume).
		const file = session.sessionFile!;
		await session.dispose();
		session.sessionManager.close();
		const reopened = await createAgentSession({
			cwd: dir,
			agentDir: join(dir, ".agent"),
			modelRuntime: (() => {
				const runtime = new InMemoryModelRuntime();
				const again = createFauxProvider({ models: [{ id: "faux-1" }] });
				again.setResponses([fauxAssistantMessage("reopened")]);
				runtime.registerFauxProvider(again);
				return runtime;
			})(),
			settingsManager: SettingsManager.inMemory(),
			sessionManager: SessionManager.open(file, join(dir, ".sessions")),
		});
		expect(() => reopened.session.getContextUsage()).not.toThrow();
		await reopened.session.prompt("hello again");
		expect(reopened.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		await reopened.session.dispose();
		reopened.session.sessionManager.close();
	});
});

describe("pi#4909: a custom tool whose execute() resolves to a plain string", () => {
	it("the call ends as an error result that says what execute() must return; the run goes on to the model's answer", async () => {
		const { session, faux, events } = await hostSession(dir, [
			{
				name: "noop",
				label: "Noop",
				description: "returns a string",
				parameters: { type: "object", properties: {} } as never,
				execute: async () => "hi" as never,
			},
		]);
		faux.setResponses([
			fauxAssistantMessage(fauxToolCall("noop", {}, { id: "n1" }), { stopReason: "toolUse" }),
			fauxAssistantMessage("noop answered"),
		]);
		await session.prompt("call noop");
		const end = events.find((event) => event.type === "tool_execution_end");
		expect(end).toMatchObject({ toolCallId: "n1", isError: true });
		expect(resultText(end)).toContain("execute() must resolve to { content:");
		expect(session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
		expect(savedToolResults(session.sessionFile!)).toEqual([
			expect.objectContaining({
				toolName: "noop",
				isError: true,
				content: [expect.objectContaining({ type: "text" })],
			}),
		]);
		await session.dispose();
	});
});

describe("pi#3890: a custom tool's onUpdate() with a partial result that has no content array", () => {
	it("the update reaches subscribers as given, the final result is kept, and the run settles once", async () => {
		const { session, faux, events } = await hostSession(dir, [
			{
				name: "progress",
				label: "Progress",
				description: "reports progress",
				parameters: { type: "object", properties: {} } as never,
				execute: async (_id, _params, _signal, onUpdate) => {
					onUpdate?.({ percent: 50 } as never);
					return { content: [{ type: "text", text: "finished" }], details: {} };
				},
			},
		]);
		faux.setResponses([
			fauxAssistantMessage(fauxToolCall("progress", {}, { id: "p1" }), { stopReason: "toolUse" }),
			fauxAssistantMessage("progress done"),
		]);
		await session.prompt("go");
		expect(events.find((event) => event.type === "tool_execution_update")).toMatchObject({
			toolCallId: "p1",
			partialResult: { percent: 50 },
		});
		expect(resultText(events.find((event) => event.type === "tool_execution_end"))).toBe("finished");
		expect(events.filter((event) => event.type === "agent_settled")).toHaveLength(1);
		await session.dispose();
	});
});

describe("piclaw#9: a custom tool that returns a PDF as an image block poisoned every later request of the session", () => {
	/** Anthropic's check of inline image types: any other `media_type` fails the whole request with 400. */
	const ANTHROPIC_IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
	const sentImageTypes = (body: { messages: { content: unknown }[] }): string[] =>
		JSON.stringify(body)
			.match(/"media_type":"[^"]*"/g)
			?.map((field) => field.slice('"media_type":"'.length, -1)) ?? [];

	it("the request carries a note in the image's place, the model answers this and the next prompt; the file keeps the tool's block", async () => {
		const pdf = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n").toString("base64");
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: (request, next) => {
				const wrong = sentImageTypes(request.body).find((type) => !ANTHROPIC_IMAGE_TYPES.includes(type));
				if (wrong === undefined) return next();
				return anthropicError(
					400,
					"invalid_request_error",
					`messages.2.content.0.tool_result.content.1.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp' (got ${wrong})`,
				);
			},
			extensionFactories: [
				toolAnswering("read_attachment", [
					{ type: "text", text: "report.pdf" },
					{ type: "image", data: pdf, mimeType: "application/pdf" },
				]),
			],
		});
		const { server } = w;
		expect(await callToolThenPromptAgain(w, "read_attachment")).toEqual(["toolUse", "stop", "stop"]);
		expect(w.server.requests).toHaveLength(3);
		expect(sentImageTypes(server.requests[1]!.body)).toEqual([]);
		expect(JSON.stringify(server.requests[1]!.body)).toContain("application/pdf is not a supported image type");
		// The tool's output is not deleted: the file holds the block as the tool returned it.
		const saved = savedMessages(w, "toolResult");
		expect(saved[0]?.content).toEqual([
			{ type: "text", text: "report.pdf" },
			{ type: "image", data: pdf, mimeType: "application/pdf" },
		]);
	});
});

describe("openclaw#18212: a tool's image block whose data is not base64 made every later request fail", () => {
	it("the request carries a note in the image's place; this turn and the next prompt are answered; the file keeps the block", async () => {
		const base64 = /^[A-Za-z0-9+/]+={0,2}$/;
		const w = await wireSession({
			api: "anthropic-messages",
			model: { input: ["text", "image"] },
			route: (request, next) => {
				const data = JSON.stringify(request.body).match(/"data":"[^"]*"/g) ?? [];
				if (data.every((field) => base64.test(field.slice('"data":"'.length, -1)))) return next();
				return anthropicError(
					400,
					"invalid_request_error",
					"messages.2.content.0.tool_result.content.0.image.source.base64: invalid base64 data",
				);
			},
			extensionFactories: [
				toolAnswering("screenshot", [{ type: "image", data: "<binary screenshot bytes>", mimeType: "image/png" }]),
			],
		});
		const { server } = w;
		expect(await callToolThenPromptAgain(w, "screenshot")).toEqual(["toolUse", "stop", "stop"]);
		expect(w.server.requests).toHaveLength(3);
		expect(JSON.stringify(server.requests[1]!.body)).not.toContain("binary screenshot bytes");
		expect(JSON.stringify(server.requests[1]!.body)).toContain("[Image omitted: its data is not base64.]");
		const saved = savedMessages(w, "toolResult");
		expect(saved[0]?.content).toEqual([{ type: "image", data: "<binary screenshot bytes>", mimeType: "image/png" }]);
	});
});
