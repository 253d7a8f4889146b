/**
 * mateclaw#190: `read` of a file whose one line passes the output cap (a 32 KB single-line JSON
 * array) returned empty content with "truncated, continue with startLine=1": the model read line 1
 * again, got nothing again, and looped. openclaw#126587: minified JSON and bundles, one line over
 * 50 KiB, gave the model none of it. What the user should see: a way to the line's bytes that works
 * when followed, and windows around it that move on.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script, toolResultTexts } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** A 5 MB minified JSON array on one line, as an API dump writes it. */
const dump = `[${Array.from({ length: 100_000 }, (_, i) => `{"id":${i},"name":"asset-${i}","tags":["a","b"]}`).join(",")}]`;

describe("mateclaw#190, openclaw#126587: a line longer than the output cap", () => {
	it("mateclaw#190: the 5 MB one-line dump: read says how long the line is and gives a bash command; run as given, it returns the line's first 50 KB; offset 2 is past the end, never 'continue at 1'", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read", "bash"] });
		writeFileSync(join(h.tempDir, "assets.json"), dump);
		script(h, [fauxAssistantMessage([fauxToolCall("read", { path: "assets.json" })], { stopReason: "toolUse" })]);
		await h.session.prompt("how many assets are there?");
		const [hint] = toolResultTexts(h);
		expect(hint?.isError).toBe(false);
		expect(hint?.text).toBe(
			"[Line 1 is 4.8MB, exceeds 50.0KB limit. Use bash: sed -n '1p' assets.json | head -c 51200]",
		);
		const command = /Use bash: (.*)\]$/.exec(hint!.text)![1]!;
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("read", { path: "assets.json", offset: 2 })], { stopReason: "toolUse" }),
			fauxAssistantMessage("100,000"),
		]);
		await h.session.prompt("go on");
		const [, bytes, past] = toolResultTexts(h);
		expect(bytes).toEqual({ isError: false, text: dump.slice(0, 51_200) });
		expect(past).toEqual({ isError: true, text: "Offset 2 is beyond end of file (1 line total)" });
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "100,000" }] });
	});

	it("openclaw#126587: a bundle (banner, one 4.8 MB line, source-map comment) is read in windows that move past the long line", async () => {
		h = await createHarness({ persistence: "disk", initialActiveToolNames: ["read"] });
		writeFileSync(
			join(h.tempDir, "bundle.min.js"),
			`/*! app v2.1.0 */\nwindow.assets=${dump};\n//# sourceMappingURL=bundle.min.js.map\n`,
		);
		script(h, [
			fauxAssistantMessage([fauxToolCall("read", { path: "bundle.min.js" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("read", { path: "bundle.min.js", offset: 2 })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("read", { path: "bundle.min.js", offset: 3 })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("which version is the bundle?");
		expect(toolResultTexts(h)).toEqual([
			{
				isError: false,
				text: "/*! app v2.1.0 */\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]",
			},
			{
				isError: false,
				text: "[Line 2 is 4.8MB, exceeds 50.0KB limit. Use bash: sed -n '2p' bundle.min.js | head -c 51200]",
			},
			{ isError: false, text: "//# sourceMappingURL=bundle.min.js.map\n" },
		]);
	});
});
