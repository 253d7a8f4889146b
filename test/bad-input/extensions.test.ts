/**
 * Extensions that fail (c): at load time (a throwing factory, a file with a syntax error), in an
 * event handler of each kind, in a command. Each failure is reported — a load error naming the
 * file, or an `onError` record naming the extension and the event — and the session stays usable:
 * the next prompt runs and is written to disk.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { validateBoundaryEntries } from "../../src/extensions/boundary.js";
import type { ExtensionAPI, ExtensionError } from "../../src/extensions/types.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import {
	closeSession,
	createWorkspace,
	diskRoles,
	expectSettleError,
	lastAssistant,
	openSession,
	type Workspace,
} from "./helpers.js";

let ws: Workspace;
let session: AgentSession | undefined;

beforeEach(() => {
	ws = createWorkspace();
});

afterEach(() => {
	if (session) closeSession(session);
	session = undefined;
	ws.cleanup();
});

/** Subscribes to extension errors; returns the list they land in. */
function collectErrors(s: AgentSession): ExtensionError[] {
	const errors: ExtensionError[] = [];
	s.extensionRunner.onError((error) => errors.push(error));
	return errors;
}

/** The session answers a plain prompt and writes it. */
async function expectUsable(s: AgentSession, text = "still works"): Promise<void> {
	ws.reply(text);
	await s.prompt(`ping ${text}`);
	expect(lastAssistant(s).text).toBe(text);
	expect(s.isIdle).toBe(true);
	const roles = diskRoles(s.sessionFile!).filter((role) => role === "user" || role === "assistant");
	expect(roles.slice(-2)).toEqual(["user", "assistant"]);
}

describe("extensions that fail at load time", () => {
	it("a factory that throws: a load error naming the extension; the others load; the session works", async () => {
		const loaded: string[] = [];
		session = await openSession(ws, {
			extensions: [
				() => {
					throw new Error("missing API token for the ticket tracker");
				},
				(pi: ExtensionAPI) => {
					loaded.push("second");
					pi.on("agent_settled", () => undefined);
				},
			],
		});
		expect(session.extensionLoadErrors).toHaveLength(1);
		expect(session.extensionLoadErrors[0]!.error).toContain("missing API token for the ticket tracker");
		expect(session.extensionLoadErrors[0]!.path).toContain("inline");
		expect(loaded).toEqual(["second"]);
		await expectUsable(session);
	});

	it("a file with a syntax error: a load error naming the file and the line; the session works", async () => {
		const file = join(ws.root, "broken-ext.ts");
		writeFileSync(file, "export default function (pi) {\n\tpi.on('input', () => {\n}\n");
		session = await openSession(ws, { extensionPaths: [file] });
		expect(session.extensionLoadErrors).toHaveLength(1);
		expect(session.extensionLoadErrors[0]!.path).toBe(file);
		expect(session.extensionLoadErrors[0]!.error).toContain("broken-ext.ts");
		await expectUsable(session);
	});

	it("regression: an --extension path that does not exist was skipped silently — now a load error naming the path (as pi)", async () => {
		const file = join(ws.root, "nope-ext.ts");
		session = await openSession(ws, { extensionPaths: [file] });
		expect(session.extensionLoadErrors.map((error) => error.path)).toEqual([file]);
		expect(session.extensionLoadErrors[0]!.error).toContain("does not exist");
		await expectUsable(session);
	});
});

describe("extensions that throw in a handler", () => {
	const kinds = ["input", "message_end", "before_agent_start"] as const;

	it.each(kinds)(
		"%s: onError names the extension and the event; the prompt completes; the session works",
		async (kind) => {
			let armed = true;
			session = await openSession(ws, {
				extensions: [
					(pi: ExtensionAPI) => {
						pi.on(kind, () => {
							if (!armed) return undefined;
							throw new Error(`${kind} handler exploded`);
						});
					},
				],
			});
			const errors = collectErrors(session);
			ws.faux.appendResponses([
				fauxAssistantMessage(fauxToolCall("read", { path: "notes.txt" }), { stopReason: "toolUse" }),
				fauxAssistantMessage("done"),
			]);
			writeFileSync(join(ws.project, "notes.txt"), "hello\n");
			const outcome = await session.prompt("go").then(
				() => "resolved",
				(error: unknown) => error,
			);
			armed = false;
			expect(errors.length).toBeGreaterThan(0);
			expect(errors[0]).toMatchObject({ event: kind, error: expect.stringContaining(`${kind} handler exploded`) });
			expect(errors[0]!.extensionPath).toContain("inline");
			expect(session.isIdle).toBe(true);
			expect(["resolved"]).toContain(outcome);
			await expectUsable(session);
		},
	);

	it("tool_call: the tool is blocked (pi: fails closed) with an error result naming the failure; the session works", async () => {
		writeFileSync(join(ws.project, "notes.txt"), "secret\n");
		session = await openSession(ws, {
			extensions: [
				(pi: ExtensionAPI) => {
					pi.on("tool_call", () => {
						throw new Error("policy engine unavailable");
					});
				},
			],
		});
		ws.faux.appendResponses([
			fauxAssistantMessage(fauxToolCall("read", { path: "notes.txt" }), { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await session.prompt("go");
		const result = session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ toolName: "read", isError: true });
		const text = JSON.stringify(result);
		expect(text).toContain("policy engine unavailable");
		expect(text).not.toContain("secret");
		expect(session.isIdle).toBe(true);
		await expectUsable(session);
	});

	it("session_before_compact: onError names it; the built-in summary is used; the session works", async () => {
		session = await openSession(ws, {
			settingsManager: SettingsManager.inMemory({ compaction: { keepRecentTokens: 1 } }),
			extensions: [
				(pi: ExtensionAPI) => {
					pi.on("session_before_compact", () => {
						throw new Error("compact hook exploded");
					});
				},
			],
		});
		const errors = collectErrors(session);
		ws.reply("a", "b", "c");
		await session.prompt("one");
		await session.prompt("two");
		await session.prompt("three");
		const before = diskRoles(session.sessionFile!);
		ws.reply("summary of the talk", "summary of the turn prefix");
		const outcome = await session.compact().catch((error: unknown) => error);
		expect(outcome).toMatchObject({ summary: expect.stringContaining("summary of the") });
		expect(errors).toEqual([
			expect.objectContaining({
				event: "session_before_compact",
				error: expect.stringContaining("compact hook exploded"),
			}),
		]);
		expect(session.isIdle).toBe(true);
		expect(diskRoles(session.sessionFile!).slice(0, before.length)).toEqual(before);
		await expectUsable(session);
	});

	it("a command that throws: onError names the command; the prompt resolves; nothing is sent to the model", async () => {
		session = await openSession(ws, {
			extensions: [
				(pi: ExtensionAPI) => {
					pi.registerCommand("deploy", {
						description: "deploys",
						handler: async () => {
							throw new Error("deploy target unreachable");
						},
					});
				},
			],
		});
		const errors = collectErrors(session);
		const calls = ws.faux.callCount;
		await session.prompt("/deploy prod");
		expect(ws.faux.callCount).toBe(calls);
		expect(errors).toEqual([
			expect.objectContaining({
				extensionPath: "command:deploy",
				error: expect.stringContaining("deploy target unreachable"),
			}),
		]);
		await expectUsable(session);
	});
});

describe("validateBoundaryEntries (public)", () => {
	it("regression: threw plain Errors — now SettleError INVALID_ARGUMENT naming the draft and the problem", () => {
		let error: unknown;
		try {
			validateBoundaryEntries([
				{ type: "custom", customType: "ok" },
				{ type: "context_edit", targetId: "" },
			]);
		} catch (caught) {
			error = caught;
		}
		expectSettleError(error, "INVALID_ARGUMENT", "entries[1] (context_edit)", "targetId");
	});
});
