/**
 * Owners a host drops without closing them (a SessionManager never closed, a runtime never
 * disposed): once they are collected, the session file's lock, its descriptor and the lock's
 * refresh timer are released too, so the host can open the file again.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFauxProvider, type FauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	createWorkspace,
	fauxModelRuntime,
	recordingFactory,
	startRuntime,
	type Workspace,
} from "../runtime/helpers.js";
import { forceGc, openFilePaths, tick, trackTimers } from "./helpers.js";

let dir: string;
let ws: Workspace;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-lifetime-abandoned-"));
	ws = createWorkspace();
});
afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
	ws.cleanup();
});

/** Writes a conversation through a manager that is then dropped without close(); returns the file. */
function writeAndDrop(): string {
	const manager = SessionManager.create(dir, join(dir, "sessions"));
	manager.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
	manager.appendMessage(fauxAssistantMessage("hi"));
	return manager.getSessionFile()!;
}

describe("dropped without close", () => {
	it("a SessionManager dropped without close() kept its lock, descriptor and refresh timer for the life of the process", async () => {
		const timers = trackTimers();
		const files = [writeAndDrop(), writeAndDrop()];
		for (const file of files) expect(existsSync(`${file}.lock`)).toBe(true);
		await forceGc();
		for (const file of files) {
			expect(existsSync(`${file}.lock`)).toBe(false);
			expect(openFilePaths()).not.toContain(file);
			SessionManager.open(file).close();
		}
		await tick();
		expect(timers.pending()).toBe(0);
		timers.stop();
	});

	it("a runtime dropped without dispose() kept its current session file locked for the life of the process", async () => {
		let faux: FauxProvider | undefined;
		const rec = recordingFactory({
			modelRuntime: () => {
				faux = createFauxProvider();
				return fauxModelRuntime(faux);
			},
			resourceLoaderOptions: { noExtensions: true },
		});
		const file = await (async () => {
			const runtime = await startRuntime(rec.factory, ws, ws.alpha);
			faux!.setResponses([fauxAssistantMessage("ok")]);
			await runtime.session.prompt("hi");
			return runtime.session.sessionFile!;
		})();
		// The test's own references: the factory's record and the faux provider (it records every request).
		rec.built.length = 0;
		faux = undefined;
		expect(existsSync(`${file}.lock`)).toBe(true);
		await forceGc();
		expect(existsSync(`${file}.lock`)).toBe(false);
		SessionManager.open(file).close();
	});

	it("a createAgentSession session dropped without dispose() releases its session file once collected", async () => {
		const file = await (async () => {
			const faux = createFauxProvider();
			const modelRuntime = new InMemoryModelRuntime();
			modelRuntime.registerFauxProvider(faux);
			const { session } = await createAgentSession({
				cwd: dir,
				agentDir: join(dir, "agent"),
				modelRuntime,
				model: faux.getModel()!,
			});
			faux.setResponses([fauxAssistantMessage("ok")]);
			await session.prompt("hi");
			return session.sessionFile!;
		})();
		expect(existsSync(`${file}.lock`)).toBe(true);
		await forceGc();
		expect(existsSync(`${file}.lock`)).toBe(false);
		SessionManager.open(file).close();
	});

	it("a manager still referenced keeps its lock through GCs", async () => {
		const manager = SessionManager.create(dir, join(dir, "sessions"));
		manager.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
		manager.appendMessage(fauxAssistantMessage("hi"));
		await forceGc();
		expect(existsSync(`${manager.getSessionFile()}.lock`)).toBe(true);
		manager.appendMessage({ role: "user", content: "still writing", timestamp: Date.now() });
		manager.close();
		expect(existsSync(`${manager.getSessionFile()}.lock`)).toBe(false);
	});
});
