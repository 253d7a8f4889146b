/**
 * lionagi#2059: agent profiles are symlinks into another repository; while that repository was
 * mid-branch-switch the target was missing, and the tool said "not found" for a file the user could
 * see in the folder, with nothing hinting at a broken link. Settle's `ls` lists such a link (pi#7977),
 * so a bare "File not found" for it reads as a contradiction. What the user should see: the link
 * named as one, with the target that is missing; once the target is back, the read works.
 */
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
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

/** `agents/reviewer.md` links into `repo/agents/`, whose file is away (a branch without it checked out). */
function profilesWithTargetAway(cwd: string): void {
	mkdirSync(join(cwd, "repo", "agents"), { recursive: true });
	mkdirSync(join(cwd, "agents"));
	writeFileSync(join(cwd, "repo", "agents", "reviewer.md.away"), "You review pull requests.\n");
	symlinkSync("../repo/agents/reviewer.md", join(cwd, "agents", "reviewer.md"));
}

describe("lionagi#2059: a symlink whose target is missing is reported as a plain 'not found'", () => {
	it("lionagi#2059: ls lists reviewer.md; read names it a link to the missing ../repo/agents/reviewer.md; with the target back, read returns it", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "ls"] });
		profilesWithTargetAway(h.tempDir);
		script(h, [
			fauxAssistantMessage(
				[fauxToolCall("ls", { path: "agents" }), fauxToolCall("read", { path: "agents/reviewer.md" })],
				{
					stopReason: "toolUse",
				},
			),
			fauxAssistantMessage("The profile's target is missing; switch the repository back."),
		]);
		await h.session.prompt("load the reviewer profile");
		const link = join(h.tempDir, "agents", "reviewer.md");
		expect(toolResultTexts(h)).toEqual([
			{ isError: false, text: "reviewer.md" },
			{
				isError: true,
				text: `File not found: ${link} (a symbolic link to ../repo/agents/reviewer.md, which does not exist)`,
			},
		]);

		renameSync(join(h.tempDir, "repo", "agents", "reviewer.md.away"), join(h.tempDir, "repo", "agents", "reviewer.md"));
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "agents/reviewer.md" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("loaded"),
		]);
		await h.session.prompt("try again");
		expect(toolResultTexts(h).at(-1)).toEqual({ isError: false, text: "You review pull requests.\n" });
	});

	it("lionagi#2059: a path that does not exist at all still says only 'File not found'", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "agents/missing.md" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("read it");
		expect(toolResultTexts(h)).toEqual([
			{ isError: true, text: `File not found: ${join(h.tempDir, "agents", "missing.md")}` },
		]);
	});

	it("lionagi#2059 (pi-peer): pi 0.73.1 lists no reviewer.md at all and reads it as a bare ENOENT", async () => {
		const cwd = await mkdtemp(join(tmpdir(), "settle-lionagi-2059-"));
		try {
			profilesWithTargetAway(cwd);
			const ls = await pi
				.createLsToolDefinition(cwd)
				.execute("c", { path: "agents" }, undefined, undefined, undefined as never);
			expect(ls.content[0]).toMatchObject({ text: "(empty directory)" });
			await expect(
				pi
					.createReadToolDefinition(cwd)
					.execute("c", { path: "agents/reviewer.md" }, undefined, undefined, undefined as never),
			).rejects.toThrow(/^ENOENT: no such file or directory/);
		} finally {
			await rm(cwd, { recursive: true, force: true });
		}
	});
});
