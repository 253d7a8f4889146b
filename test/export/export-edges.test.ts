/**
 * Exports at awkward moments: while a prompt is running (`/export` mid-turn), and of a session file
 * whose project folder is gone. Each gives the page of what the session holds, and disturbs nothing.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportSessionToHtml } from "../../src/export/index.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { embeddedData, useHarnessAndDir } from "./helpers.js";

const scratch = useHarnessAndDir();

describe("exports at awkward moments", () => {
	it("/export while a prompt waits on its answer writes the conversation so far; the prompt then finishes and the session file holds it all", async () => {
		const h = await scratch.harness({ persistence: "disk" });
		let release!: (message: AssistantMessage) => void;
		const late = new Promise<AssistantMessage>((resolve) => {
			release = resolve;
		});
		let asked!: () => void;
		const requested = new Promise<void>((resolve) => {
			asked = resolve;
		});
		h.setResponses([
			fauxAssistantMessage("FIRST-ANSWER"),
			() => {
				asked();
				return late;
			},
		]);
		await h.session.prompt("first question");
		const running = h.session.prompt("second question");
		await requested;

		const dir = scratch.tempDir("settle-export-edges-");
		const page = await h.session.exportToHtml(join(dir, "mid-turn.html"));
		const during = embeddedData(page);
		const texts = JSON.stringify(during.entries);
		expect(texts).toContain("first question");
		expect(texts).toContain("FIRST-ANSWER");
		expect(texts).not.toContain("SECOND-ANSWER");

		release(fauxAssistantMessage("SECOND-ANSWER"));
		await running;
		const after = h.sessionManager.getEntries();
		// What the page held is what the session went on from: the same entries, in order.
		expect(after.slice(0, during.entries.length)).toEqual(during.entries);
		const file = readFileSync(h.session.sessionFile!, "utf8");
		for (const text of ["first question", "FIRST-ANSWER", "second question", "SECOND-ANSWER"])
			expect(file).toContain(text);
	});

	it("a session file whose project folder was removed exports; the page names the folder it was made in", async () => {
		const dir = scratch.tempDir("settle-export-edges-");
		const project = join(dir, "worktree");
		mkdirSync(project);
		const session = join(dir, "session.jsonl");
		const header = { type: "session", version: 3, id: "gone-cwd", timestamp: "2026-09-08T10:00:00.000Z", cwd: project };
		const prompt = {
			type: "message",
			id: "a1b2c3d4",
			parentId: null,
			timestamp: "2026-09-08T10:00:01.000Z",
			message: { role: "user", content: "GONE-CWD-PROMPT", timestamp: 1_788_861_601_000 },
		};
		writeFileSync(session, `${JSON.stringify(header)}\n${JSON.stringify(prompt)}\n`);
		rmSync(project, { recursive: true });

		const out = join(dir, "page.html");
		expect(await exportSessionToHtml(session, { outputPath: out })).toBe(out);
		const data = embeddedData(out) as ReturnType<typeof embeddedData> & { header: { cwd: string } };
		expect(data.header.cwd).toBe(project);
		expect(JSON.stringify(data.entries)).toContain("GONE-CWD-PROMPT");
	});
});
