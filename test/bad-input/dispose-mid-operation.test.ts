/**
 * Disposing a session while an operation is in flight: the late answers of the work that was
 * running (preflight, the Agent run) reach a stopped machine. They must be dropped silently — no
 * XState "sent to stopped actor" warnings on the console — and the pending prompt rejects with
 * SESSION_CLOSED. What was written before the dispose stays on disk.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { closeSession, createWorkspace, diskRoles, openSession, type Workspace } from "./helpers.js";

let ws: Workspace;
let printed: string[];

beforeEach(() => {
	ws = createWorkspace();
	printed = [];
	for (const method of ["warn", "error", "log"] as const) {
		vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
			printed.push(`${method}: ${args.map(String).join(" ")}`);
		});
	}
});

afterEach(() => {
	vi.restoreAllMocks();
	ws.cleanup();
});

/** A promise and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
	let open!: () => void;
	const promise = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { promise, open };
}

/** Lets every pending reaction run (several rounds: the late answers are chains of promises). */
async function drain(): Promise<void> {
	for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("regression: dispose mid-operation printed XState 'sent to stopped actor' warnings", () => {
	it("dispose while the model streams: RUN_DONE arrives late and is dropped silently", async () => {
		const session = await openSession(ws);
		ws.reply("before");
		await session.prompt("first");
		const file = session.sessionFile!;
		const reached = gate();
		const release = gate();
		ws.faux.appendResponses([
			async () => {
				reached.open();
				await release.promise;
				return fauxAssistantMessage("too late");
			},
		]);
		const pending = session.prompt("second").catch((error: unknown) => error);
		await reached.promise;
		closeSession(session);
		release.open();
		const error = (await pending) as SettleError;
		await drain();
		expect(error.code).toBe("SESSION_CLOSED");
		expect(printed).toEqual([]);
		const conversation = diskRoles(file).filter((role) => role === "user" || role === "assistant");
		expect(conversation.slice(0, 3)).toEqual(["user", "assistant", "user"]);
	});

	it("dispose while an input handler runs (preflight): PREFLIGHT_DONE arrives late and is dropped silently", async () => {
		const reached = gate();
		const release = gate();
		let block = false;
		const session = await openSession(ws, {
			extensions: [
				(pi) => {
					pi.on("input", async () => {
						if (!block) return undefined;
						reached.open();
						await release.promise;
						return undefined;
					});
				},
			],
		});
		ws.reply("before");
		await session.prompt("first");
		block = true;
		const pending = session.prompt("second").catch((error: unknown) => error);
		await reached.promise;
		closeSession(session);
		release.open();
		const error = (await pending) as SettleError;
		await drain();
		expect(error.code).toBe("SESSION_CLOSED");
		expect(printed).toEqual([]);
	});
});
