/**
 * vercel/ai#19225 (harness-pi, the AI SDK's harness around pi): the recursive `grep` ran `grep -R`,
 * which follows every symbolic link met on the way down, so a link inside the project to a folder
 * outside it exposed files beyond the readable roots; a link back to an ancestor (`loop -> ..`)
 * makes such a walk endless. Replayed with a model's `grep` and `find` calls in a real session over
 * a real tree holding both links.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
let outside: string | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
	if (outside) rmSync(outside, { recursive: true, force: true });
	outside = undefined;
});

/**
 * A project whose `src/app.ts` holds TOKEN, with `shared -> <a folder outside holding secret.env
 * with TOKEN>` and `src/loop -> ..`; the model's calls run in one answer each.
 */
async function searchProject(calls: { name: string; args: Record<string, unknown> }[]): Promise<Harness> {
	const harness = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep", "find"] });
	h = harness;
	outside = mkdtempSync(join(tmpdir(), "settle-outside-"));
	writeFileSync(join(outside, "secret.env"), "API_TOKEN=outside-the-project\n");
	mkdirSync(join(harness.tempDir, "src"));
	writeFileSync(join(harness.tempDir, "src", "app.ts"), "const TOKEN = process.env.API_TOKEN;\n");
	symlinkSync(outside, join(harness.tempDir, "shared"));
	symlinkSync("..", join(harness.tempDir, "src", "loop"));
	script(harness, [
		...calls.map((call) => fauxAssistantMessage([fauxToolCall(call.name, call.args)], { stopReason: "toolUse" })),
		fauxAssistantMessage("done"),
	]);
	await harness.session.prompt("where is the token read?");
	return harness;
}

describe("vercel/ai#19225: a recursive search follows symbolic links out of the project (and round a loop)", () => {
	it("vercel/ai#19225: grep and find from the project root finish, list src/app.ts once, and never enter the link to the outside folder or the loop", async () => {
		const harness = await searchProject([
			{ name: "grep", args: { pattern: "TOKEN" } },
			{ name: "find", args: { pattern: "**/*.{ts,env}" } },
		]);
		const [grep, find] = toolResultTexts(harness);
		expect(grep).toEqual({ isError: false, text: "src/app.ts:1: const TOKEN = process.env.API_TOKEN;" });
		expect(find).toEqual({ isError: false, text: "src/app.ts" });
		expect(harness.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "done" }] });
	});

	it("vercel/ai#19225: a link the model names as the search path is searched, as rg searches a root it is given", async () => {
		const harness = await searchProject([{ name: "grep", args: { pattern: "TOKEN", path: "shared" } }]);
		const [grep] = toolResultTexts(harness);
		expect(grep?.isError).toBe(false);
		expect(grep?.text).toContain("API_TOKEN=outside-the-project");
	});
});
