/**
 * pi 0.73.1 bugs the tree / replacement differential found, pinned on both peers. The differential
 * (tree-differential.property.test.ts) keeps these cases out of its comparison by name.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { onBothRuntimes, type RuntimePeer } from "./tree-peers.js";

/** A copy of the peer's current session file outside its session dir, recording `cwd` as its cwd. */
function exportedWithCwd(peer: RuntimePeer, cwd: string): string {
	const outside = join(peer.dirs.root, "outside");
	mkdirSync(outside, { recursive: true });
	const file = join(outside, "exported.jsonl");
	const text = readFileSync(peer.session.sessionFile!, "utf8");
	writeFileSync(file, text.replaceAll(JSON.stringify(peer.dirs.cwd), JSON.stringify(cwd)));
	return file;
}

describe("pi 0.73.1 bugs around forking, pinned against Settle", () => {
	it("PI_FORK_LOSES_UNWRITTEN_PATH: a runtime fork whose path has no assistant message keeps the path, cwd and parent only in Settle", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "answer" }, { text: "after the fork" }]);
				await peer.session.prompt("question");
				const parent = peer.session.sessionFile;
				const user = peer.session.sessionManager
					.getEntries()
					.find((e) => e.type === "message" && (e.message as { role: string }).role === "user");
				await peer.runtime.fork(String(user!.id), { position: "at" });
				const header = peer.session.sessionManager.getHeader();
				const context = peer.session.messages
					.map((m) => (m as { role: string }).role)
					.filter((role) => role !== "system");
				await peer.session.prompt("again");
				return {
					cwdKept: header?.cwd === peer.dirs.cwd,
					cwd: header?.cwd,
					parentKept: header?.parentSession === parent,
					context,
					writtenCwd: peer.fileEntries(peer.session.sessionFile!)[0]?.cwd === header?.cwd,
				};
			},
		);
		// pi: createBranchedSession does not write a path without an assistant message, and the runtime
		// then opens the missing file as a new session in process.cwd(), without the parent and the path.
		expect(runs.pi).toEqual({ cwdKept: false, cwd: process.cwd(), parentKept: false, context: [], writtenCwd: true });
		expect(runs.settle).toEqual({
			cwdKept: true,
			cwd: expect.any(String),
			parentKept: true,
			context: ["user"],
			writtenCwd: true,
		});
	});

	it("PI_OPEN_MISSING_FILE_CWD: switchSession to a new session's file not written yet keeps the project's cwd only in Settle", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "answer" }]);
				await peer.session.prompt("question");
				await peer.runtime.newSession();
				const unwritten = peer.session.sessionFile!;
				await peer.runtime.newSession();
				await peer.runtime.switchSession(unwritten, { createIfMissing: true });
				return { cwd: peer.session.sessionManager.getHeader()?.cwd, projectCwd: peer.dirs.cwd };
			},
		);
		expect(runs.pi.cwd).toBe(process.cwd());
		expect(runs.pi.cwd).not.toBe(runs.pi.projectCwd);
		expect(runs.settle.cwd).toBe(runs.settle.projectCwd);
	});

	it("PI_COMPACTS_NOTHING_TO_SUMMARIZE: compact() on a branch without messages summarizes nothing in pi, is refused in Settle", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [], settings: { compaction: { enabled: false, keepRecentTokens: 5 } } }),
			async (peer) => {
				peer.script([{ text: "answer" }, { text: "summary of nothing" }]);
				await peer.session.prompt("question");
				const user = peer.session.sessionManager
					.getEntries()
					.find((e) => e.type === "message" && (e.message as { role: string }).role === "user");
				await peer.session.navigateTree(String(user!.id));
				const outcome = await peer.session.compact().then(
					() => "compacted",
					(error: Error) => error.message,
				);
				return { outcome, requests: peer.requests.map((r) => r.messages.join("|")) };
			},
		);
		// pi sends an empty conversation to the summarizer and writes a compaction of nothing.
		expect(runs.pi).toEqual({
			outcome: "compacted",
			requests: ["user: question", "summarize: <conversation>\n\n</conversation>"],
		});
		expect(runs.settle).toEqual({ outcome: "Nothing to compact (session too small)", requests: ["user: question"] });
	});

	it("PI_COMPACTS_NOTHING_TO_SUMMARIZE: compact() when every message fits in the kept span summarizes nothing in pi, is refused in Settle", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [], settings: { compaction: { enabled: false, keepRecentTokens: 5 } } }),
			async (peer) => {
				// "question 1" and "answer 1" estimate 3 and 2 tokens: the kept span (5) reaches back to the
				// user message, so pi's cut keeps the whole branch (its model and thinking level entries too).
				peer.script([{ text: "answer 1" }, { text: "summary of nothing" }]);
				await peer.session.prompt("question 1");
				const outcome = await peer.session.compact().then(
					() => "compacted",
					(error: Error) => error.message,
				);
				const last = peer.session.sessionManager.getBranch().at(-1) as { type: string; firstKeptEntryId?: string };
				const first = peer.session.sessionManager.getEntries()[0] as { id: string };
				return {
					outcome,
					requests: peer.requests.map((r) => r.messages.join("|")),
					last: last.type,
					keepsEverything: last.firstKeptEntryId === first.id,
				};
			},
		);
		// pi sends an empty conversation to the summarizer and writes a compaction that keeps everything.
		expect(runs.pi).toEqual({
			outcome: "compacted",
			requests: ["user: question 1", "summarize: <conversation>\n\n</conversation>"],
			last: "compaction",
			keepsEverything: true,
		});
		expect(runs.settle).toEqual({
			outcome: "Nothing to compact (session too small)",
			requests: ["user: question 1"],
			last: "message",
			keepsEverything: false,
		});
	});

	it("PI_IMPORT_OVERWRITES_SESSION_FILE: importing a file named like the current session copies over it in pi, is refused in Settle", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "answer" }, { text: "after the import" }]);
				await peer.session.prompt("question");
				const outside = join(peer.dirs.root, "outside");
				mkdirSync(outside, { recursive: true });
				const source = join(outside, "shared.jsonl");
				copyFileSync(peer.session.sessionFile!, source);
				await peer.runtime.importFromJsonl(source);
				const imported = peer.session.sessionFile!;
				await peer.session.prompt("written after the import");
				const linesBefore = readFileSync(imported, "utf8").trim().split("\n").length;
				const outcome = await peer.runtime.importFromJsonl(source).then(
					() => "imported",
					(error: Error) => error.message.replaceAll(peer.dirs.root, "<root>"),
				);
				const linesAfter = readFileSync(imported, "utf8").trim().split("\n").length;
				return { outcome, lostLines: linesBefore - linesAfter };
			},
		);
		// pi copies the source over the current file: the prompt written after the first import is gone.
		expect(runs.pi).toEqual({ outcome: "imported", lostLines: 2 });
		expect(runs.settle.outcome).toMatch(
			/^Importing <root>\/outside\/shared\.jsonl would overwrite the current session file /,
		);
		expect(runs.settle.lostLines).toBe(0);
	});

	it("PI_FAILED_SETUP_LEAVES_UNBOUND_SESSION: a newSession whose setup throws has already replaced the session in pi (never bound by its host); Settle keeps the old one", async () => {
		const log: Record<"pi" | "settle", string[]> = { pi: [], settle: [] };
		const runs = await onBothRuntimes(
			(name) => ({
				customTools: [],
				extensions: [
					(api: ExtensionAPI) => {
						api.on("session_start", (event) => {
							log[name].push(`session_start ${event.reason}`);
						});
						api.on("session_shutdown", (event) => {
							log[name].push(`session_shutdown ${event.reason}`);
						});
					},
				],
			}),
			async (peer) => {
				peer.script([{ text: "answer" }, { text: "again" }]);
				await peer.session.prompt("question");
				const before = peer.session;
				const outcome = await peer.runtime
					.newSession({
						setup: async () => {
							throw new Error("setup failed");
						},
					})
					.then(
						() => "resolved",
						(error: Error) => error.message,
					);
				const replaced = peer.session !== before;
				await peer.session.prompt("again");
				const roles = peer.session.messages.map((m) => (m as { role: string }).role).filter((r) => r !== "system");
				return { outcome, replaced, roles, log: [...log[peer.name]] };
			},
		);
		// pi: the old session is shut down and the new one installed before setup runs; the host's
		// rebind (and withSession) never run for it, so its extensions never see session_start.
		expect(runs.pi).toEqual({
			outcome: "setup failed",
			replaced: true,
			roles: ["user", "assistant"],
			log: ["session_start startup", "session_shutdown new"],
		});
		expect(runs.settle).toEqual({
			outcome: "setup failed",
			replaced: false,
			roles: ["user", "assistant", "user", "assistant"],
			log: ["session_start startup"],
		});
	});

	it("PI_FAILED_IMPORT_LEAVES_COPY: importing a file whose recorded cwd is gone leaves a copy in the session dir in pi; Settle checks first and copies nothing", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "answer" }]);
				await peer.session.prompt("question");
				const source = exportedWithCwd(peer, join(peer.dirs.root, "gone"));
				const outcome = await peer.runtime.importFromJsonl(source).then(
					() => "imported",
					(error: Error) => error.message.replaceAll(peer.dirs.root, "<root>"),
				);
				return { outcome, copyLeft: existsSync(join(peer.dirs.sessionDir, "exported.jsonl")) };
			},
		);
		const missing = "Stored session working directory does not exist: <root>/gone\nSession file: ";
		expect(runs.pi).toEqual({
			outcome: `${missing}<root>/sessions/exported.jsonl\nCurrent working directory: <root>/cwd`,
			copyLeft: true,
		});
		expect(runs.settle).toEqual({
			outcome: `${missing}<root>/outside/exported.jsonl\nCurrent working directory: <root>/cwd`,
			copyLeft: false,
		});
	});

	it("PI_FORK_DROPS_CWD_OVERRIDE: forking a session imported with a cwdOverride runs the fork in the file's recorded cwd (gone) in pi, in the override in Settle", async () => {
		const runs = await onBothRuntimes(
			() => ({ customTools: [], extensions: [] }),
			async (peer) => {
				peer.script([{ text: "answer" }, { text: "after the import" }]);
				await peer.session.prompt("question");
				const source = exportedWithCwd(peer, join(peer.dirs.root, "gone"));
				const other = join(peer.dirs.root, "other");
				mkdirSync(other);
				await peer.runtime.importFromJsonl(source, other);
				const importedCwd = peer.runtime.cwd;
				await peer.session.prompt("after the import");
				const assistant = peer.session.sessionManager
					.getEntries()
					.filter((e) => e.type === "message" && (e.message as { role: string }).role === "assistant")
					.at(-1);
				await peer.runtime.fork(String(assistant!.id), { position: "at" });
				const named = (path: unknown) => String(path).replaceAll(peer.dirs.root, "<root>");
				return {
					importedCwd: named(importedCwd),
					forkCwd: named(peer.runtime.cwd),
					forkHeaderCwd: named(peer.session.sessionManager.getHeader()?.cwd),
				};
			},
		);
		expect(runs.pi).toEqual({ importedCwd: "<root>/other", forkCwd: "<root>/gone", forkHeaderCwd: "<root>/gone" });
		expect(runs.settle).toEqual({
			importedCwd: "<root>/other",
			forkCwd: "<root>/other",
			forkHeaderCwd: "<root>/other",
		});
	});
});
