/**
 * Settle defects found by the differential tests against pi 0.73.1 (pi-differential*.property.test.ts),
 * one focused test each.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/store/session-manager.js";
import { tempDir, track } from "./helpers.js";

const header = {
	type: "session",
	version: 3,
	id: "bom-session",
	timestamp: "2024-01-01T00:00:00.000Z",
	cwd: "/work/project",
};
const userEntry = (id: string, parentId: string | null, content: string) => ({
	type: "message",
	id,
	parentId,
	timestamp: "2024-01-01T00:00:01.000Z",
	message: { role: "user", content, timestamp: 1 },
});
const lines = (...values: object[]) => values.map((v) => `${JSON.stringify(v)}\n`).join("");

describe("bug: a UTF-8 byte order mark before the header made Settle refuse a session pi opens", () => {
	it("open, list, findById and continueRecent read past the BOM like pi", async () => {
		const dir = tempDir("bom-");
		const file = join(dir, "2024-01-01T00-00-00-000Z_bom-session.jsonl");
		writeFileSync(file, `\uFEFF${lines(header, userEntry("a1", null, "hello"))}`);

		const pi = PiSessionManager.open(file);
		const settle = track(SessionManager.open(file));
		expect(settle.getSessionId()).toBe(pi.getSessionId());
		expect(settle.getEntries()).toEqual(pi.getEntries());
		expect(settle.buildSessionContext()).toEqual(pi.buildSessionContext());
		expect(settle.getDiagnostics()).toEqual([]);
		settle.close();

		const [info] = await SessionManager.list("/work/project", dir);
		expect(info).toMatchObject({ id: "bom-session", firstMessage: "hello", messageCount: 1 });
		expect(info).toEqual((await PiSessionManager.list("/work/project", dir))[0]);
		expect(SessionManager.findById("/work/project", "bom-session", dir)).toBe(file);
		const recent = track(SessionManager.continueRecent("/work/project", dir));
		expect(recent.getSessionFile()).toBe(file);
	});
});

describe("bug: getChildren listed an entry that a later entry with the same id shadows", () => {
	it("lists only the entry lookups by id return, at the first one's place, as pi does", () => {
		const dir = tempDir("dup-id-");
		const file = join(dir, "dup.jsonl");
		writeFileSync(
			file,
			lines(
				header,
				userEntry("a1", null, "one"),
				userEntry("b1", "a1", "two"),
				userEntry("a1", null, "one again"),
				userEntry("c1", "a1", "three"),
			),
		);
		const pi = PiSessionManager.open(file);
		const settle = track(SessionManager.open(file));
		expect(settle.getDiagnostics().map((d) => d.kind)).toEqual(["duplicate_id"]);
		const roots = settle.getChildren(null);
		expect(roots).toHaveLength(1);
		expect(roots[0]).toBe(settle.getEntry("a1"));
		expect(roots).toEqual(pi.getChildren(null as unknown as string));
		expect(settle.getChildren("a1").map((e) => e.id)).toEqual(pi.getChildren("a1").map((e) => e.id));
	});
});

describe("bug: the context of a leaf in the first chain passed through an entry a later duplicate id shadows", () => {
	it("walks through the entry lookups by id return, as pi does", () => {
		const dir = tempDir("dup-id-");
		const file = join(dir, "dup.jsonl");
		writeFileSync(
			file,
			lines(header, userEntry("a1", null, "shadowed"), userEntry("b1", "a1", "two"), userEntry("c1", "b1", "three"), {
				...userEntry("a1", null, "winner"),
				type: "custom",
				customType: "dup",
			}),
		);
		const pi = PiSessionManager.open(file);
		const settle = track(SessionManager.open(file));
		pi.branch("c1");
		settle.branch("c1");
		expect(settle.buildSessionContext().messages.map((m) => (m as { content: unknown }).content)).toEqual([
			"two",
			"three",
		]);
		expect(settle.buildSessionContext()).toEqual(pi.buildSessionContext());
		expect(settle.getBranch().map((e) => e.type)).toEqual(["custom", "message", "message"]);
	});
});
