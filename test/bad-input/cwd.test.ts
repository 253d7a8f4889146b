/**
 * A missing or unusable working directory (e): the caller's `cwd` and the cwd a session file
 * recorded, on create, open (startup), switch (resume). Typed errors name the directory; nothing
 * is torn down or written; the override way out works.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MissingSessionCwdError } from "../../src/runtime/errors.js";
import { createAgentSessionRuntimeFactory } from "../../src/runtime/factory.js";
import { createAgentSessionRuntime } from "../../src/runtime/runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { closeSession, expectSettleError, lastAssistant, openSession, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

/** A session of the project written to disk, after which the project directory is moved away. */
async function sessionOfMovedProject(): Promise<{ file: string; bytes: Buffer; moved: string }> {
	const session = await openSession(ws);
	ws.reply("answer");
	await session.prompt("question");
	const file = session.sessionFile!;
	closeSession(session);
	const moved = `${ws.project}-moved`;
	renameSync(ws.project, moved);
	return { file, bytes: readFileSync(file), moved };
}

function factory() {
	return createAgentSessionRuntimeFactory({ modelRuntime: () => ws.modelRuntime });
}

describe("the caller's cwd", () => {
	it.each([
		["does not exist", () => join(ws.root, "no-such-dir")],
		[
			"is not a directory",
			() => {
				const file = join(ws.root, "a-file");
				writeFileSync(file, "not a dir");
				return file;
			},
		],
	])(
		"createAgentSession with a cwd that %s: regression — it used to start; now INVALID_ARGUMENT naming it",
		async (problem, cwd) => {
			const path = cwd();
			const error = await createAgentSession({
				cwd: path,
				agentDir: ws.agentDir,
				modelRuntime: ws.modelRuntime,
				settingsManager: SettingsManager.inMemory(),
			}).catch((e: unknown) => e);
			expectSettleError(
				error,
				"INVALID_ARGUMENT",
				`Working directory ${problem}: ${path}`,
				"Pass an existing project directory",
			);
		},
	);
});

describe("the cwd a session file recorded", () => {
	it("regression: createAgentSession started a session whose recorded cwd is gone — now MissingSessionCwdError before anything runs; the file keeps its bytes", async () => {
		const { file, bytes } = await sessionOfMovedProject();
		const manager = SessionManager.open(file);
		const error = await createAgentSession({
			agentDir: ws.agentDir,
			modelRuntime: ws.modelRuntime,
			settingsManager: SettingsManager.inMemory(),
			sessionManager: manager,
		}).catch((e: unknown) => e);
		manager.close();
		expect(error).toBeInstanceOf(MissingSessionCwdError);
		expectSettleError(error, "MISSING_SESSION_CWD", ws.project, file);
		expect(readFileSync(file).equals(bytes)).toBe(true);
	});

	it("createAgentSessionRuntime (open at startup): MissingSessionCwdError; the lock is released; cwdOverride opens it", async () => {
		const { file, bytes, moved } = await sessionOfMovedProject();
		await expect(
			createAgentSessionRuntime(factory(), {
				cwd: ws.root,
				agentDir: ws.agentDir,
				sessionManager: SessionManager.open(file),
			}),
		).rejects.toBeInstanceOf(MissingSessionCwdError);
		expect(readFileSync(file).equals(bytes)).toBe(true);
		const runtime = await createAgentSessionRuntime(factory(), {
			cwd: ws.root,
			agentDir: ws.agentDir,
			sessionManager: SessionManager.open(file, undefined, moved),
		});
		expect(runtime.cwd).toBe(moved);
		expect(JSON.stringify(runtime.session.messages)).toContain("question");
		await runtime.dispose();
	});

	it("regression: a recorded cwd that is a FILE passed the check — switchSession now throws MissingSessionCwdError ('is not a directory'); the current session is untouched", async () => {
		const { file, bytes } = await sessionOfMovedProject();
		writeFileSync(ws.project, "a file where the project was");
		const runtime = await createAgentSessionRuntime(factory(), {
			cwd: ws.root,
			agentDir: ws.agentDir,
			sessionManager: SessionManager.inMemory(ws.root),
		});
		const before = runtime.session;
		const error = await runtime.switchSession(file).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(MissingSessionCwdError);
		expectSettleError(
			error,
			"MISSING_SESSION_CWD",
			`Stored session working directory is not a directory: ${ws.project}`,
		);
		expect(runtime.session).toBe(before);
		ws.reply("still here");
		await runtime.session.prompt("hello?");
		expect(lastAssistant(runtime.session).text).toBe("still here");
		expect(readFileSync(file).equals(bytes)).toBe(true);
		await runtime.switchSession(file, { cwdOverride: ws.root });
		expect(runtime.cwd).toBe(ws.root);
		await runtime.dispose();
	});
});
