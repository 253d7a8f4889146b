/**
 * Session names across a fork, replayed against Settle on real JSONL files through an
 * `AgentSessionRuntime`, and read back as a session list reads them.
 *
 * claude-code#14618: after a fork, renaming the fork renamed the original too; codeg#418: forking a
 * renamed session put the original back on its old name. What the user should see: the fork starts
 * with the name the branch had, each file keeps its own name from then on, and the original's file
 * is not touched by the fork or by a rename in it.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/index.js";
import { manualDiskRuntime, removeTempDirs } from "./disk-harness.js";

afterEach(() => removeTempDirs());

describe("claude-code#14618, codeg#418: renaming a session and its fork", () => {
	it("claude-code#14618, codeg#418: /name, /fork, /name in the fork: the list shows both names; the original file keeps its bytes and its name", async () => {
		const { dir, sessionDir, provider, runtime } = await manualDiskRuntime();
		const original = runtime.session;
		original.setSessionName("XXX");
		provider.answer("first answer", "second answer");
		await original.prompt("first question");
		original.setSessionName("YYY");
		await original.prompt("second question");
		const originalFile = original.sessionFile!;
		const originalBytes = readFileSync(originalFile, "utf8");

		const secondUser = original.sessionManager
			.getEntries()
			.filter((entry) => entry.type === "message" && entry.message.role === "user")[1]!;
		await runtime.fork(secondUser.id);
		const fork = runtime.session;
		expect(fork.sessionFile).not.toBe(originalFile);
		expect(fork.sessionName).toBe("YYY");
		fork.setSessionName("forked-session");
		provider.answer("answer in the fork");
		await fork.prompt("second question, asked another way");
		expect(fork.sessionName).toBe("forked-session");

		expect(readFileSync(originalFile, "utf8")).toBe(originalBytes);
		const names = new Map((await SessionManager.list(dir, sessionDir)).map((info) => [info.path, info.name]));
		expect(names.get(originalFile)).toBe("YYY");
		expect(names.get(fork.sessionFile!)).toBe("forked-session");
		expect(SessionManager.open(originalFile, sessionDir).getSessionName()).toBe("YYY");
		await runtime.dispose();
	});
});
