/**
 * claude-code#43036, openclaw#31186: a model's `read` of a folder (`memory` for
 * `memory/2026-03-01.md`) came back as the raw `EISDIR: illegal operation on a directory, read`:
 * no word of what to do, a wasted call (158 of them in one user's logs), and in openclaw the errno
 * text reached the user's chat. What the user should see: the path named as a folder, with the tool
 * that lists it; the model's next calls list it and read the file.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("claude-code#43036, openclaw#31186: read of a folder answers with a raw EISDIR", () => {
	it("openclaw#31186: read of `memory` says it is a folder and to use ls; ls, then read of the note, follow in the same session", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "ls"] });
		mkdirSync(join(h.tempDir, "memory"));
		writeFileSync(join(h.tempDir, "memory", "2026-03-01.md"), "- call the bank\n");
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "memory" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("ls", { path: "memory" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("read", { path: "memory/2026-03-01.md" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("You wanted to call the bank."),
		]);
		await h.session.prompt("what did I note on March 1st?");
		const [folder, listing, note] = toolResultTexts(h);
		expect(folder).toEqual({
			isError: true,
			text: `${join(h.tempDir, "memory")} is a directory, not a file. Use ls to list it.`,
		});
		expect(listing).toEqual({ isError: false, text: "2026-03-01.md" });
		expect(note).toEqual({ isError: false, text: "- call the bank\n" });
		expect(readFileSync(h.session.sessionFile!, "utf8")).not.toContain("EISDIR");
		expect(h.session.messages.at(-1)).toMatchObject({
			role: "assistant",
			content: [{ text: "You wanted to call the bank." }],
		});
	});

	it("claude-code#43036: the project root (`.`) and a folder given with a trailing slash are named as folders too", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
		mkdirSync(join(h.tempDir, "src"));
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "." }), fauxToolCall("read", { path: "src/" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("look around");
		const results = toolResultTexts(h);
		expect(results.map((result) => result.isError)).toEqual([true, true]);
		expect(results[0]?.text).toBe(`${h.tempDir} is a directory, not a file. Use ls to list it.`);
		expect(results[1]?.text).toMatch(/\/src\/? is a directory, not a file\. Use ls to list it\.$/);
	});

	it("openclaw#31186 (pi-peer): pi 0.73.1's read of the folder throws the raw errno text", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-openclaw-31186-"));
		try {
			mkdirSync(join(cwd, "memory"));
			const tool = pi.createReadToolDefinition(cwd);
			await expect(tool.execute("c", { path: "memory" }, undefined, undefined, undefined as never)).rejects.toThrow(
				"EISDIR: illegal operation on a directory, read",
			);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
