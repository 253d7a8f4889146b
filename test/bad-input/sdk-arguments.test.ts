/**
 * What a plain-JavaScript host can hand the SDK's other entry points where the types say a string,
 * a model, a thinking level or a callback: `createAgentSession` options, `session.setModel` /
 * `setThinkingLevel`, `runtime.switchSession` / `newSession` / `fork` / `importFromJsonl`. Each is
 * refused with `INVALID_ARGUMENT` naming what to pass (not Node's raw `paths[0]` TypeError, not a
 * model silently ignored); nothing is written or torn down, and the session keeps answering.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import { type AgentSessionRuntime, createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { closeSession, diskRoles, expectSettleError, lastAssistant, openSession, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

/** Every session file under the workspace (session dir and agent dir). */
function sessionFiles(): string[] {
	return readdirSync(ws.root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
}

async function rejection(call: () => Promise<unknown>): Promise<unknown> {
	return call().then(
		() => undefined,
		(error: unknown) => error,
	);
}

describe("createAgentSession given options of the wrong type", () => {
	it.each([
		["cwd: 42", { cwd: 42 }, "cwd must be a string"],
		["agentDir: 42", { agentDir: 42 }, "agentDir must be a string"],
		["model: 42", { model: 42 }, 'the model must be a model (modelRuntime.getModel(provider, id)) or "provider/id"'],
		["model: {}", { model: {} }, "string provider and id"],
		["thinkingLevel: 'hgih'", { thinkingLevel: "hgih" }, 'the thinking level must be one of "off"'],
		// customTools were taken as given: a string was ignored, a nameless tool missing ("Tool t not
		// found"), a tool without execute failed only when the model called it.
		["customTools: 'x'", { customTools: "x" }, 'customTools must be a list of tool definitions (got "x")'],
		["customTools: [null]", { customTools: [null] }, "customTools[0] must be a tool definition (got null)"],
		["customTools: [{ execute }]", { customTools: [{ execute: async () => ({}) }] }, "customTools[0] has no name"],
		[
			"customTools: [tool, { name }]",
			{
				customTools: [
					{ name: "ok", label: "ok", description: "ok", parameters: {}, execute: async () => ({ content: [] }) },
					{ name: "t", label: "T", description: "d", parameters: {} },
				],
			},
			'customTools[1] ("t") has no execute function (got undefined). Give each tool { name, label, description, parameters, execute }',
		],
		// atlas-mcp-server#14: a name the Anthropic API refuses made every request fail with a 400.
		[
			"customTools: [{ name: 'atlas.project_create' }]",
			{
				customTools: [
					{
						name: "atlas.project_create",
						label: "A",
						description: "d",
						parameters: {},
						execute: async () => ({ content: [] }),
					},
				],
			},
			'customTools[0] ("atlas.project_create") has a name providers refuse: only letters, digits, "_" and "-", at most 64',
		],
		// codebase-memory-mcp#1867: a tool without parameters made every Anthropic request fail.
		[
			"customTools: [{ name, execute }]",
			{ customTools: [{ name: "legacy", label: "L", description: "d", execute: async () => ({ content: [] }) }] },
			'customTools[0] ("legacy") has no parameters schema object (got undefined); use Type.Object({}) for a tool without arguments',
		],
	] as const)(
		"regression: createAgentSession({ %s }) rejects with INVALID_ARGUMENT instead of a raw TypeError or a silently ignored option",
		async (_label, bad, mention) => {
			const error = await rejection(() =>
				createAgentSession({
					cwd: ws.project,
					agentDir: ws.agentDir,
					modelRuntime: ws.modelRuntime,
					...(bad as object),
				}),
			);
			expectSettleError(error, "INVALID_ARGUMENT", "createAgentSession:", mention);
			expect(sessionFiles()).toEqual([]);
			const { session } = await createAgentSession({
				cwd: ws.project,
				agentDir: ws.agentDir,
				modelRuntime: ws.modelRuntime,
				sessionManager: SessionManager.create(ws.project, ws.sessionDir),
			});
			try {
				ws.reply("fine");
				await session.prompt("hello");
				expect(lastAssistant(session).text).toBe("fine");
			} finally {
				closeSession(session);
			}
		},
	);
});

describe("session model and thinking calls given the wrong type", () => {
	it.each([
		["undefined", undefined],
		["a provider/id string", "faux/faux-1"],
		["an object without provider", { id: "faux-1" }],
	])(
		"regression: session.setModel(%s) rejects with INVALID_ARGUMENT instead of a raw TypeError",
		async (_label, value) => {
			const session = await openSession(ws);
			try {
				ws.reply("first");
				await session.prompt("first");
				const changes = diskRoles(session.sessionFile!).filter((role) => role === "model_change").length;
				const model = session.model;
				const error = await rejection(() => session.setModel(value as never));
				expectSettleError(error, "INVALID_ARGUMENT", "session.setModel:", "string provider and id");
				expect(session.model).toBe(model);
				ws.reply("same model");
				await session.prompt("hello");
				expect(lastAssistant(session).text).toBe("same model");
				expect(diskRoles(session.sessionFile!).filter((role) => role === "model_change")).toHaveLength(changes);
			} finally {
				closeSession(session);
			}
		},
	);

	it("regression: setThinkingLevel with an unknown level rejects with INVALID_ARGUMENT instead of silently recording 'off'", async () => {
		const session = await openSession(ws);
		try {
			ws.reply("first");
			await session.prompt("first");
			const before = diskRoles(session.sessionFile!).filter((role) => role !== "user" && role !== "assistant");
			const level = session.thinkingLevel;
			for (const bad of ["hgih", 3, undefined]) {
				let error: unknown;
				try {
					session.setThinkingLevel(bad as never);
				} catch (caught) {
					error = caught;
				}
				expectSettleError(error, "INVALID_ARGUMENT", "session.setThinkingLevel:", '"xhigh"');
			}
			const error = await rejection(() => session.setModel(session.model!, { thinkingLevel: "max" as never }));
			expectSettleError(error, "INVALID_ARGUMENT", "session.setModel:", "the thinking level");
			expect(session.thinkingLevel).toBe(level);
			ws.reply("answered");
			await session.prompt("hello");
			expect(diskRoles(session.sessionFile!).filter((role) => role !== "user" && role !== "assistant")).toEqual(before);
		} finally {
			closeSession(session);
		}
	});
});

describe("runtime replacements given arguments of the wrong type", () => {
	async function startedRuntime(): Promise<{ runtime: AgentSessionRuntime; file: string }> {
		const runtime = await createAgentSessionRuntime(
			createAgentSessionRuntimeFactory({ modelRuntime: () => ws.modelRuntime }),
			{ cwd: ws.project, agentDir: ws.agentDir, sessionManager: SessionManager.create(ws.project, ws.sessionDir) },
		);
		ws.reply("first");
		await runtime.session.prompt("first question");
		return { runtime, file: runtime.session.sessionFile! };
	}

	it("regression: switchSession(42), newSession({ setup: 42 }) and the like reject with INVALID_ARGUMENT; the current session is kept and answers", async () => {
		const { runtime, file } = await startedRuntime();
		try {
			const session = runtime.session;
			const bytes = readFileSync(file);
			const userId = session.sessionManager.getEntries().find((entry) => entry.type === "message")!.id;
			const refusals: [() => Promise<unknown>, string][] = [
				[() => runtime.switchSession(42 as never), "runtime.switchSession: the session path must be a string"],
				[() => runtime.switchSession(file, { cwdOverride: 42 as never }), "runtime.switchSession: cwdOverride"],
				[() => runtime.switchSession(file, { withSession: "go" as never }), "withSession must be a function"],
				[() => runtime.newSession({ parentSession: 42 as never }), "runtime.newSession: parentSession"],
				[() => runtime.newSession({ setup: 42 as never }), "runtime.newSession: setup must be a function"],
				[() => runtime.newSession({ withSession: {} as never }), "runtime.newSession: withSession"],
				[() => runtime.fork(userId, { position: "after" as never }), 'runtime.fork: position must be "before" or "at"'],
				[() => runtime.fork(userId, { withSession: 1 as never }), "runtime.fork: withSession"],
				[() => runtime.importFromJsonl(42 as never), "runtime.importFromJsonl: the input path"],
				[() => runtime.importFromJsonl(file, 42 as never), "runtime.importFromJsonl: cwdOverride"],
			];
			for (const [call, mention] of refusals) {
				expectSettleError(await rejection(call), "INVALID_ARGUMENT", mention);
				expect(runtime.session).toBe(session);
				expect(runtime.lifecycle).toBe("active");
			}
			expect(readFileSync(file).equals(bytes)).toBe(true);
			expect(sessionFiles()).toHaveLength(1);
			ws.reply("second");
			await runtime.session.prompt("second question");
			expect(lastAssistant(runtime.session).text).toBe("second");
			expect(diskRoles(file).filter((role) => role === "user")).toHaveLength(2);
		} finally {
			await runtime.dispose();
		}
	});
});
