/**
 * A user shell command (`!cmd`, RPC `bash`, `session.executeBash`) still running when the runtime
 * replaces or disposes its session. The teardown aborts it and waits (within `settleTimeoutMs`)
 * for its result to reach the old session's file, as it does for the run's aborted answer
 * (pi-desktop#46): the command is in the file it was run in, marked cancelled, with what it printed.
 * Before, the session was disposed under the command: it was killed, `executeBash` rejected with
 * SESSION_CLOSED and the file never said it ran (pi lets it finish and records it in the old file).
 * A command asked for once the replacement started is refused with BUSY, as a prompt is.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SESSION_BEING_REPLACED } from "../../src/session/texts.js";
import { assertUsable, loggingFactory, startRuntime } from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();

/** The bashExecution messages written to `file`. */
function bashEntries(file: string): { command: string; output: string; cancelled: boolean }[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.length > 0)
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "message" && entry.message.role === "bashExecution")
		.map((entry) => entry.message);
}

/** Starts `echo started; sleep 30` on `session`; resolves once it printed, with its settled outcome. */
async function startLongCommand(session: AgentSession): Promise<{ outcome: Promise<unknown> }> {
	let printed!: () => void;
	const started = new Promise<void>((resolve) => {
		printed = resolve;
	});
	const outcome = session
		.executeBash("echo started; sleep 30", (chunk) => {
			if (chunk.includes("started")) printed();
		})
		.catch((error: unknown) => error);
	await started;
	return { outcome };
}

describe("a user shell command running when the runtime tears its session down", () => {
	it("newSession: the command is cancelled and recorded in the old session's file; executeBash resolves", async () => {
		t.runtime = await startRuntime(loggingFactory(t.faux, []).factory, t.ws, t.ws.alpha);
		await assertUsable(t.runtime.session, t.faux, "hi"); // the file exists
		const old = t.runtime.session;
		const oldFile = old.sessionFile!;
		const { outcome } = await startLongCommand(old);
		await t.runtime.newSession();
		expect(t.runtime.session).not.toBe(old);
		expect(await outcome).toMatchObject({ cancelled: true, output: expect.stringContaining("started") });
		expect(bashEntries(oldFile)).toEqual([
			expect.objectContaining({
				command: "echo started; sleep 30",
				cancelled: true,
				output: expect.stringContaining("started"),
			}),
		]);
		await assertUsable(t.runtime.session, t.faux, "new one");
	});

	it("dispose: the command is cancelled and recorded before the session goes", async () => {
		const runtime = await startRuntime(loggingFactory(t.faux, []).factory, t.ws, t.ws.alpha);
		await assertUsable(runtime.session, t.faux, "hi");
		const file = runtime.session.sessionFile!;
		const { outcome } = await startLongCommand(runtime.session);
		await runtime.dispose();
		expect(await outcome).toMatchObject({ cancelled: true });
		expect(bashEntries(file)).toEqual([
			expect.objectContaining({ command: "echo started; sleep 30", cancelled: true }),
		]);
	});

	it("a command started while session_shutdown runs is refused with BUSY at once: nothing runs to be killed unrecorded", async () => {
		let entered!: () => void;
		const inShutdown = new Promise<void>((resolve) => {
			entered = resolve;
		});
		let release!: () => void;
		const released = new Promise<void>((resolve) => {
			release = resolve;
		});
		const holdShutdown = (pi: ExtensionAPI) => {
			pi.on("session_shutdown", async () => {
				entered();
				await released;
			});
		};
		t.runtime = await startRuntime(loggingFactory(t.faux, [], [holdShutdown]).factory, t.ws, t.ws.alpha);
		await assertUsable(t.runtime.session, t.faux, "hi");
		const old = t.runtime.session;
		const oldFile = old.sessionFile!;
		const replaced = t.runtime.newSession();
		await inShutdown;
		const refused = await old.executeBash("echo late; sleep 30").catch((error: unknown) => error);
		release();
		await replaced;
		expect(refused).toBeInstanceOf(SettleError);
		expect(refused).toMatchObject({ code: "BUSY", message: SESSION_BEING_REPLACED });
		expect(bashEntries(oldFile)).toEqual([]);
	});
});
