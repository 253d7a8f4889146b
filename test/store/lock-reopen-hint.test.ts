/**
 * A host that reopens the file of a session it created with its own SessionManager, right after
 * `session.dispose()`, meets SESSION_LOCKED (dispose closes only a manager the session made itself).
 * The error says which call frees the file, and how to read it without the lock; both work.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir } from "./helpers.js";

const open: SessionManager[] = [];
afterEach(() => {
	for (const manager of open.splice(0)) manager.close();
});

async function disposedSessionFile(): Promise<{ file: string; manager: SessionManager }> {
	const cwd = tempDir();
	const faux = createFauxProvider();
	const modelRuntime = new InMemoryModelRuntime();
	modelRuntime.registerFauxProvider(faux);
	const manager = SessionManager.create(cwd, join(cwd, "sessions"));
	open.push(manager);
	const { session } = await createAgentSession({
		cwd,
		agentDir: join(cwd, "agent"),
		modelRuntime,
		model: faux.getModel(),
		settingsManager: SettingsManager.inMemory(),
		sessionManager: manager,
	});
	faux.setResponses([fauxAssistantMessage("hi")]);
	await session.prompt("hello");
	session.dispose();
	return { file: session.sessionFile!, manager };
}

describe("reopening a disposed session's file", () => {
	it("SESSION_LOCKED names session.sessionManager.close() and { readOnly: true }; each does what it says", async () => {
		const { file, manager } = await disposedSessionFile();
		let error: unknown;
		try {
			open.push(SessionManager.open(file));
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("SESSION_LOCKED");
		const { message } = error as SettleError;
		expect(message).toContain("another SessionManager in this process");
		expect(message).toContain(
			"session.dispose() does not close a SessionManager you gave the session: call session.sessionManager.close()",
		);
		expect(message).toContain("to only read it, open it with { readOnly: true }");

		const reader = SessionManager.open(file, undefined, undefined, { readOnly: true });
		open.push(reader);
		const roles = reader.getEntries().flatMap((entry) => (entry.type === "message" ? [entry.message.role] : []));
		expect(roles).toEqual(["system", "user", "assistant"]);

		manager.close();
		const writer = SessionManager.open(file);
		open.push(writer);
		expect(writer.getSessionFile()).toBe(file);
	});

	it("a writer in another process is not told about session.dispose(), only about { readOnly: true }", () => {
		const dir = tempDir();
		const manager = SessionManager.create("/cwd", dir);
		manager.appendMessage({ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 });
		manager.close();
		const file = manager.getSessionFile()!;
		mkdirSync(`${file}.lock`);
		const owner = { pid: process.ppid, hostname: hostname(), acquiredAt: "", token: "t" };
		writeFileSync(join(`${file}.lock`, "owner.json"), JSON.stringify(owner));
		let message = "";
		try {
			SessionManager.open(file);
		} catch (error) {
			message = (error as SettleError).message;
		}
		expect(message).toContain(`process ${process.ppid} on ${hostname()}`);
		expect(message).toContain("to only read it, open it with { readOnly: true }");
		expect(message).not.toContain("session.dispose()");
		rmSync(`${file}.lock`, { recursive: true });
	});
});
