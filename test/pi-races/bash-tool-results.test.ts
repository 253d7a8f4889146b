/**
 * Reports about what the model's `bash` call returns, replayed against Settle through its public
 * API with a real shell: output under the limits reaching the model whole, the output a command
 * printed before its timeout, and a long multi-step command running to its end.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import type { AgentMessage } from "../../src/llm/types.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** Runs one model `bash` call with these arguments and returns its tool result. */
async function bashResult(args: Record<string, unknown>) {
	h = await createHarness({ persistence: "disk", initialActiveToolNames: ["bash"] });
	script(h, [
		fauxAssistantMessage([fauxToolCall("bash", args)], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	]);
	await h.session.prompt("run it");
	expect(h.session.messages.at(-1)).toMatchObject({ content: [{ text: "done" }] });
	const result = h.session.messages.find((message) => message.role === "toolResult") as Extract<
		AgentMessage,
		{ role: "toolResult" }
	>;
	const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
	return { result, text, details: result.details as { truncation?: unknown; fullOutputPath?: string } | undefined };
}

describe("pi#5662: bash output cut far below the documented limits", () => {
	it("pi#5662: 200 lines of ~210 characters (~41 KB, under 50 KB and 2,000 lines) reach the model whole, with no truncation notice and no full-output file", async () => {
		const { result, text, details } = await bashResult({
			command: 'for i in $(seq 1 200); do printf "Line %03d: %-200s\\n" $i ""; done',
		});
		expect(result.isError).toBe(false);
		const lines = text.split("\n").filter(Boolean);
		expect(lines).toHaveLength(200);
		expect(lines[0]!.startsWith("Line 001: ")).toBe(true);
		expect(lines[57]!.startsWith("Line 058: ")).toBe(true);
		expect(lines[199]!.startsWith("Line 200: ")).toBe(true);
		expect(Buffer.byteLength(text)).toBeGreaterThan(40_000);
		expect(text).not.toContain("[Showing");
		expect(details?.fullOutputPath).toBeUndefined();
	});
});

describe("opencode#45881: a bash timeout drops the output printed before it", () => {
	it("opencode#45881: `echo CRITICAL-PROGRESS; sleep 30` with timeout 1: the error result carries the progress line, then the timeout", async () => {
		const { result, text } = await bashResult({ command: "echo CRITICAL-PROGRESS; sleep 30; echo NEVER", timeout: 1 });
		expect(result.isError).toBe(true);
		expect(text).toBe("CRITICAL-PROGRESS\n\n\nCommand timed out after 1 second");
	});
});

describe("pi#7136: a long bash command silently cut partway through", () => {
	it("pi#7136: a ~9,000-character command of 30 file-writing steps and a final echo runs every step: all files hold their content and DONE is printed", async () => {
		const body = (n: number) => `step ${n} `.padEnd(250, "x");
		const steps = Array.from({ length: 30 }, (_, i) => `printf '%s' '${body(i)}' > step-${i}.txt`);
		const command = `${steps.join(" && ")} && echo DONE`;
		expect(command.length).toBeGreaterThan(8_000);
		const { result, text } = await bashResult({ command });
		expect(result.isError).toBe(false);
		expect(text).toBe("DONE\n");
		for (let i = 0; i < 30; i++) {
			const file = join(h!.tempDir, `step-${i}.txt`);
			expect(existsSync(file)).toBe(true);
			expect(readFileSync(file, "utf8")).toBe(body(i));
		}
	});
});
