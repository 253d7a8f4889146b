/**
 * The SessionManager factories take their options as one object — `open(file, { sessionDir,
 * cwdOverride, readOnly, createIfMissing })`, `create(cwd, { sessionDir, id })`,
 * `forkFrom(source, cwd, { sessionDir, id })`, `list(cwd, { sessionDir, onProgress })`,
 * `listAll({ sessionDir, onProgress })`, `continueRecent(cwd, { sessionDir })`,
 * `inMemory({ cwd, id, entries })` — as well as pi's positional form. Real JSONL files in temp dirs,
 * through the package root.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager, SettleError } from "../../src/index.js";
import { tempDir, track, user } from "./helpers.js";

function thrown(fn: () => unknown): SettleError {
	try {
		fn();
	} catch (error) {
		expect(error).toBeInstanceOf(SettleError);
		return error as SettleError;
	}
	throw new Error("expected a SettleError");
}

/** The SettleError a promise rejects with. */
async function rejected(promise: Promise<unknown>): Promise<SettleError> {
	const error = await promise.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(SettleError);
	return error as SettleError;
}

/** A session file with one user message, its manager closed (no lock held). */
function written(dir: string, id: string, cwd = "/project"): string {
	const sm = SessionManager.create(cwd, { sessionDir: dir, id });
	sm.appendMessage(user("hello"));
	sm.close();
	return sm.getSessionFile()!;
}

describe("SessionManager factories with an options object", () => {
	it("create(cwd, { sessionDir, id, parentSession }) writes there, under that id", () => {
		const dir = tempDir();
		const sm = track(SessionManager.create("/project", { sessionDir: dir, id: "review-1", parentSession: "/a.jsonl" }));
		sm.appendMessage(user("hello"));
		expect(sm.getSessionId()).toBe("review-1");
		expect(sm.getSessionDir()).toBe(dir);
		expect(dirname(sm.getSessionFile()!)).toBe(dir);
		expect(sm.getSessionFile()!.endsWith("_review-1.jsonl")).toBe(true);
		expect(JSON.parse(readFileSync(sm.getSessionFile()!, "utf8").split("\n")[0]!)).toMatchObject({
			type: "session",
			id: "review-1",
			cwd: "/project",
			parentSession: "/a.jsonl",
		});
		expect(thrown(() => SessionManager.create("/project", { id: "no spaces" })).code).toBe("INVALID_ARGUMENT");
	});

	it("open(file, { readOnly }) reads without the lock while a writer holds it; appends throw", () => {
		const file = written(tempDir(), "s1");
		const writer = track(SessionManager.open(file));
		const viewer = SessionManager.open(file, { readOnly: true });
		expect(viewer.getEntries().map((entry) => entry.type)).toEqual(["message"]);
		expect(() => viewer.appendMessage(user("no"))).toThrow(SettleError);
		writer.appendMessage(user("still the writer's"));
		expect(readFileSync(file, "utf8")).toContain("still the writer's");
	});

	it("open(file, { sessionDir, cwdOverride }) and open(missing, { createIfMissing: false })", () => {
		const file = written(tempDir(), "s2");
		const elsewhere = tempDir();
		const sm = track(SessionManager.open(file, { sessionDir: elsewhere, cwdOverride: "/other" }));
		expect([sm.getCwd(), sm.getSessionDir(), sm.getSessionFile()]).toEqual(["/other", elsewhere, file]);
		sm.close();
		const missing = join(dirname(file), "sesion.jsonl");
		expect(thrown(() => SessionManager.open(missing, { createIfMissing: false })).code).toBe("NOT_FOUND");
		expect(thrown(() => SessionManager.open(missing, { readOnly: true })).code).toBe("NOT_FOUND");
		expect(existsSync(missing)).toBe(false);
	});

	it("forkFrom(source, cwd, { sessionDir, id }) copies into that dir under that id", () => {
		const source = written(tempDir(), "s3");
		const dir = tempDir();
		const copy = track(SessionManager.forkFrom(source, "/fork", { sessionDir: dir, id: "copy-1" }));
		expect([copy.getSessionId(), copy.getCwd(), dirname(copy.getSessionFile()!)]).toEqual(["copy-1", "/fork", dir]);
		expect(copy.getHeader()?.parentSession).toBe(source);
		expect(copy.getEntries().map((entry) => entry.type)).toEqual(["message"]);
	});

	it("list(cwd, { sessionDir, onProgress }), listAll({ sessionDir, onProgress }), continueRecent(cwd, { sessionDir })", async () => {
		const dir = tempDir();
		const mine = written(dir, "mine");
		const other = written(dir, "other", "/other");
		const progress: number[][] = [];
		const listed = await SessionManager.list("/project", {
			sessionDir: dir,
			onProgress: (loaded, total) => progress.push([loaded, total]),
		});
		expect(listed.map((info) => info.path)).toEqual([mine]);
		expect(progress.at(-1)).toEqual([2, 2]);
		progress.length = 0;
		const all = await SessionManager.listAll({
			sessionDir: dir,
			onProgress: (loaded, total) => progress.push([loaded, total]),
		});
		expect(all.map((info) => info.path).sort()).toEqual([mine, other].sort());
		expect(progress.at(-1)).toEqual([2, 2]);
		const continued = track(SessionManager.continueRecent("/project", { sessionDir: dir }));
		expect([continued.getSessionFile(), continued.getCwd()]).toEqual([mine, "/project"]);
		continued.close();
		const fresh = track(SessionManager.continueRecent("/elsewhere", { sessionDir: dir }));
		expect([fresh.getSessionDir(), fresh.getCwd(), fresh.getEntries()]).toEqual([dir, "/elsewhere", []]);
	});

	it("inMemory({ cwd, id, parentSession, entries }) preloads the entries, never touching the disk", () => {
		const source = SessionManager.inMemory();
		source.appendMessage(user("remembered"));
		const copy = SessionManager.inMemory({
			cwd: "/memory",
			id: "mem-1",
			parentSession: "/a.jsonl",
			entries: source.getEntries(),
		});
		expect([copy.getCwd(), copy.getSessionId(), copy.getHeader()?.parentSession, copy.getSessionFile()]).toEqual([
			"/memory",
			"mem-1",
			"/a.jsonl",
			undefined,
		]);
		expect(copy.getEntries()).toEqual(source.getEntries());
		// With a header among the entries, the session is that one.
		const same = SessionManager.inMemory({ entries: [source.getHeader()!, ...source.getEntries()] });
		expect([same.getSessionId(), same.getCwd()]).toEqual([source.getSessionId(), source.getCwd()]);
		expect(SessionManager.inMemory({}).getCwd()).toBe(process.cwd());
	});

	it("pi's positional forms still work; an options object followed by positional arguments is refused", async () => {
		const dir = tempDir();
		const file = written(dir, "s4");
		const positional = SessionManager.open(file, undefined, "/positional", { readOnly: true });
		expect(positional.getCwd()).toBe("/positional");
		const created = track(SessionManager.create("/project", dir, { id: "s5" }));
		expect([created.getSessionId(), created.getSessionDir()]).toEqual(["s5", dir]);
		const forked = track(SessionManager.forkFrom(file, "/fork", dir, { id: "s6" }));
		expect([forked.getSessionId(), forked.getSessionDir()]).toEqual(["s6", dir]);

		const mixedCalls = [
			() => SessionManager.open(file, { readOnly: true } as never, "/cwd"),
			() => SessionManager.open(file, { readOnly: true } as never, undefined, { createIfMissing: false }),
			() => SessionManager.create("/project", { sessionDir: dir } as never, { id: "x" }),
			() => SessionManager.forkFrom(file, "/fork", { sessionDir: dir } as never, { id: "x" }),
		];
		const progress: number[][] = [];
		const onProgress = (loaded: number, total: number) => progress.push([loaded, total]);
		expect((await SessionManager.list("/project", dir, onProgress)).map((info) => info.path)).toEqual([file]);
		expect((await SessionManager.listAll(dir, onProgress)).map((info) => info.path).sort()).toEqual(
			[file, forked.getSessionFile()].sort(),
		);
		expect(progress.length).toBeGreaterThan(0);
		created.close();
		const continued = track(SessionManager.continueRecent("/project", dir));
		expect(continued.getSessionFile()).toBe(file);
		const entries = continued.getEntries();
		const memory = SessionManager.inMemory("/memory", { id: "s7" }, entries);
		expect([memory.getCwd(), memory.getSessionId(), memory.getEntries()]).toEqual(["/memory", "s7", entries]);
		expect(SessionManager.inMemory(undefined, undefined, entries).getEntries()).toEqual(entries);

		const mixed = [
			...mixedCalls,
			() => SessionManager.inMemory({ cwd: "/memory" } as never, { id: "x" }),
			() => SessionManager.inMemory({ cwd: "/memory" } as never, undefined, entries),
		];
		for (const call of mixed) {
			const error = thrown(call);
			expect(error.code).toBe("INVALID_ARGUMENT");
			expect(error.message).toMatch(/^SessionManager\.(open|create|forkFrom|inMemory): pass either one options object/);
		}
		for (const call of [
			SessionManager.list("/project", { sessionDir: dir } as never, onProgress),
			SessionManager.listAll({ sessionDir: dir } as never, onProgress),
		]) {
			const error = await rejected(call);
			expect(error.code).toBe("INVALID_ARGUMENT");
			expect(error.message).toMatch(/^SessionManager\.(list|listAll): pass either one options object/);
		}
		// cwd or entries in the positional form's options object would be dropped: refused, naming the forms.
		for (const call of [
			() => SessionManager.inMemory("/memory", { entries } as never),
			() => SessionManager.inMemory(undefined, { cwd: "/memory" } as never),
		]) {
			const error = thrown(call);
			expect(error.code).toBe("INVALID_ARGUMENT");
			expect(error.message).toContain("inMemory({ cwd, entries, id })");
		}
	});
});
