/**
 * Reports about the built-in `grep` tool, replayed with a model's `grep` call in a real session over
 * real files. pi-lean-ctx#1810 (a pi extension's grep): `limit: 1` on minified JSON returned the
 * whole ~100 KB matching line; the limit bounded the number of matches, not their size. What the
 * user should see: a bounded line that says it was cut and how to see the rest.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

describe("pi-lean-ctx#1810: one match on a minified line returns the whole 100 KB line", () => {
	it("pi-lean-ctx#1810: grep with limit 1 on a 200 KB one-line bundle answers under 1 KB: the line cut at 500 characters, a note saying so", async () => {
		h = await createHarness({ persistence: "memory", initialActiveToolNames: ["grep"] });
		writeFileSync(
			join(h.tempDir, "bundle.min.json"),
			`{"a":"${"x".repeat(100_000)}","needle":"${"y".repeat(100_000)}"}`,
		);
		script(h, [
			fauxAssistantMessage([fauxToolCall("grep", { pattern: "needle", limit: 1 })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("where is needle?");
		const result = h.session.messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: false, details: { linesTruncated: true } });
		const text = (result as { content: { type: string; text: string }[] }).content[0]!.text;
		expect(text.length).toBeLessThan(1024);
		expect(text.startsWith(`bundle.min.json:1: {"a":"xxxx`)).toBe(true);
		expect(text).toContain("... [truncated]");
		expect(text).toContain("[Some lines truncated to 500 chars. Use read tool to see full lines]");
	});
});
