/**
 * `runtime.switchSession(path)` when no file is at `path`. pi (0.73.1 and 1.6.0) starts a new session
 * there, so a mistyped path silently becomes an empty session. Settle's SDK call rejects with
 * `NOT_FOUND` instead, leaving the current session as it was; `createIfMissing: true` asks for pi's
 * behavior. pi's own surfaces keep pi's behavior: an extension's `ctx.switchSession` (below) and RPC
 * `switch_session` (test/cli/rpc.test.ts). `SessionManager.open` keeps pi's default and takes
 * `createIfMissing: false`.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import type { AgentSessionRuntime } from "../../src/runtime/runtime.js";
import { SessionManager } from "../../src/store/session-manager.js";
import {
	assertUsable,
	locksUnder,
	loggingFactory,
	type RecordingFactory,
	startRuntime,
	writeClosedSession,
} from "./helpers.js";
import { useRuntimeWorkspace } from "./runtime-workspace.js";

const t = useRuntimeWorkspace();
let log: string[];
let rec: RecordingFactory;

beforeEach(() => {
	log = [];
	rec = loggingFactory(t.faux, log);
});

async function start(extra: Parameters<typeof loggingFactory>[2] = []): Promise<AgentSessionRuntime> {
	if (extra.length > 0) rec = loggingFactory(t.faux, log, extra);
	t.runtime = await startRuntime(rec.factory, t.ws, t.ws.alpha);
	return t.runtime;
}

async function rejection(promise: Promise<unknown>): Promise<SettleError> {
	const error = await promise.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(SettleError);
	return error as SettleError;
}

describe("runtime.switchSession to a path with no file", () => {
	it("rejects with NOT_FOUND naming the path and the option; the current session is untouched and usable", async () => {
		const r = await start();
		await assertUsable(r.session, t.faux, "before");
		const current = r.session;
		const file = current.sessionFile!;
		const typo = join(t.ws.sessionDir(t.ws.alpha), "2025-01-01_typo.jsonl");
		log.length = 0;
		const error = await rejection(r.switchSession(typo));
		expect(error.code).toBe("NOT_FOUND");
		expect(error.message).toBe(
			`No session file at ${typo}: check the path (SessionManager.list() lists the saved sessions of a project). To start a new session at that path, pass { createIfMissing: true }.`,
		);
		expect(error.details).toEqual({ path: typo });
		expect(existsSync(typo)).toBe(false);
		// Extensions were asked (pi asks before opening too); nothing was shut down.
		expect(log).toEqual([`#1 session_before_switch resume target=${typo}`]);
		expect(r.session).toBe(current);
		expect(r.session.sessionFile).toBe(file);
		expect(r.lifecycle).toBe("active");
		await assertUsable(r.session, t.faux, "after");
		expect(r.session.messages.filter((message) => message.role === "user")).toHaveLength(2);
	});

	it("the current session's own path before anything is written: NOT_FOUND says why", async () => {
		const r = await start();
		const path = r.session.sessionFile!;
		const error = await rejection(r.switchSession(path));
		expect(error.code).toBe("NOT_FOUND");
		expect(error.message).toContain("it is the current session's path, and nothing has been written to it yet");
		expect(error.message).toContain("{ createIfMissing: true }");
	});

	it("an existing file still switches; with createIfMissing a new session starts at the missing path (pi)", async () => {
		const beta = await writeClosedSession(rec, t.ws, t.faux, log, t.ws.beta, "beta work");
		const r = await start();
		await r.switchSession(beta);
		expect(r.cwd).toBe(t.ws.beta);
		expect(JSON.stringify(r.session.messages)).toContain("beta work");
		const chosen = join(t.ws.root, "chosen", "mine.jsonl");
		// Said by the switch (`created`), as RPC switch_session answers: no file was there.
		expect(await r.switchSession(chosen, { createIfMissing: true, cwdOverride: t.ws.alpha })).toEqual({
			cancelled: false,
			created: true,
		});
		expect(r.session.sessionFile).toBe(chosen);
		expect(r.cwd).toBe(t.ws.alpha);
		expect(r.session.messages).toEqual([]);
		await assertUsable(r.session, t.faux);
		expect(existsSync(chosen)).toBe(true);
		// Written now: a plain switch back to it works.
		await r.switchSession(beta);
		await r.switchSession(chosen);
		expect(r.session.sessionFile).toBe(chosen);
	});

	it("an extension's ctx.switchSession keeps pi's contract: a missing path starts a new session there", async () => {
		const target = join(t.ws.root, "from-extension.jsonl");
		const results: unknown[] = [];
		const r = await start([
			(pi) =>
				pi.registerCommand("goto", {
					description: "switch",
					handler: async (args, ctx) => {
						results.push(await ctx.switchSession(args));
					},
				}),
		]);
		await r.session.prompt(`/goto ${target}`);
		expect(results).toEqual([{ cancelled: false }]);
		expect(r.session.sessionFile).toBe(target);
	});
});

describe("SessionManager.open with createIfMissing: false", () => {
	it("throws NOT_FOUND for a missing file and creates nothing; an existing file opens", async () => {
		const dir = join(t.ws.root, "never-created");
		const missing = join(dir, "s.jsonl");
		let error: unknown;
		try {
			SessionManager.open(missing, undefined, undefined, { createIfMissing: false });
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(SettleError);
		expect((error as SettleError).code).toBe("NOT_FOUND");
		expect((error as SettleError).message).toContain(missing);
		expect((error as SettleError).message).toContain("SessionManager.create()");
		expect(existsSync(dir)).toBe(false);

		const written = await writeClosedSession(rec, t.ws, t.faux, log, t.ws.alpha, "kept");
		const manager = SessionManager.open(written, undefined, undefined, { createIfMissing: false });
		expect(JSON.stringify(manager.buildSessionContext().messages)).toContain("kept");
		manager.close();
		expect(locksUnder(t.ws.root)).toEqual([]);
	});

	it("the default is still pi's: a new session at that path, written at its first message", () => {
		const missing = join(t.ws.root, "new.jsonl");
		const manager = SessionManager.open(missing);
		expect(manager.getSessionFile()).toBe(missing);
		expect(manager.getEntries()).toEqual([]);
		expect(readdirSync(t.ws.root)).not.toContain("new.jsonl");
		manager.close();
	});
});
