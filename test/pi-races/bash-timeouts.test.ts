/**
 * Reports about the bash tool's `timeout` parameter, replayed against Settle with a real shell:
 * - pi#6181: a timeout over what Node's timer can hold (2^31 - 1 ms, about 24.8 days; a model's
 *   `timeout: 99999999`) fired after 1 ms: the command was killed at once and the result said it
 *   had timed out after 99999999 seconds.
 * - Tianshu-harness#187: `timeout: 0` (a model's "no limit") went to the timer as is and fired on the
 *   next tick: the command was killed at once, its result near empty with exit code -1, which looked
 *   like the command itself failing. Held: a timeout of 0 or below is no timeout in Settle (and pi).
 * - pi#9785: the timeout is in seconds, but models pass milliseconds (`timeout: 120000` for two
 *   minutes), and pi took 120000 seconds: a hung command held the run for 33 hours. Settle refuses
 *   a timeout of whole thousands from 10000 up before anything runs, saying the unit and the value
 *   meant; the model's next call, in seconds, runs.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { modelBashCall, script } from "./helpers.js";

let h: Harness | undefined;
afterEach(() => {
	h?.cleanup();
	h = undefined;
});

/** One model `bash` call with these arguments in a fresh session; its result. */
async function bashCall(args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
	h = await createHarness({ initialActiveToolNames: ["bash"] });
	const { isError, text } = await modelBashCall(h, args);
	return { isError, text };
}

describe("pi#6181: a bash timeout over the timer's limit killed the command at once", () => {
	it("pi#6181: `timeout: 99999999` is refused before anything runs, naming the longest timeout and what to do; no false `timed out`, the turn goes on", async () => {
		const { isError, text } = await bashCall({ command: "touch ran.txt; echo finished", timeout: 99999999 });
		expect(isError).toBe(true);
		expect(text).toBe(
			"Timeout 99999999 seconds is over the longest a command can be given (2147483 seconds, about 24.8 days); nothing was run. Give a smaller timeout in seconds, or none.",
		);
		expect(existsSync(join(h!.tempDir, "ran.txt"))).toBe(false);
	});

	it("pi#6181: the longest timeout accepted (2147483 seconds) lets the command run to its end", async () => {
		const { isError, text } = await bashCall({ command: "sleep 0.3; touch ran.txt; echo finished", timeout: 2147483 });
		expect({ isError, text }).toEqual({ isError: false, text: "finished\n" });
		expect(existsSync(join(h!.tempDir, "ran.txt"))).toBe(true);
	});

	it("pi#6181: a user command (`executeBash`) given such a timeout rejects with INVALID_ARGUMENT and records nothing", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		const run = h.session.executeBash("touch ran.txt; echo finished", undefined, { timeout: 99999999 });
		await expect(run).rejects.toBeInstanceOf(SettleError);
		await expect(run).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("2147483") });
		expect(h.session.messages).toEqual([]);
		expect(existsSync(join(h.tempDir, "ran.txt"))).toBe(false);
	});
});

describe("Tianshu-harness#187: a bash timeout of 0 killed the command at once", () => {
	it("Tianshu-harness#187: `timeout: 0` and `timeout: -5` mean no timeout: the command runs to its end and its output is the result", async () => {
		for (const timeout of [0, -5]) {
			const { isError, text } = await bashCall({
				command: `sleep 0.3; touch ran${timeout}.txt; echo finished`,
				timeout,
			});
			expect({ timeout, isError, text }).toEqual({ timeout, isError: false, text: "finished\n" });
			expect(existsSync(join(h!.tempDir, `ran${timeout}.txt`))).toBe(true);
			h?.cleanup();
			h = undefined;
		}
	});
});

describe("pi#9785: a bash timeout given in milliseconds was taken as seconds (120000 = 33 hours)", () => {
	it("pi#9785: `timeout: 120000` is refused before anything runs, saying the unit and `timeout: 120`; the model's call with 120 runs", async () => {
		h = await createHarness({ initialActiveToolNames: ["bash"] });
		script(h, [
			fauxAssistantMessage([fauxToolCall("bash", { command: "touch ran.txt; echo finished", timeout: 120000 })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage([fauxToolCall("bash", { command: "touch ran.txt; echo finished", timeout: 120 })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("done"),
		]);
		await h.session.prompt("run it within two minutes");
		const results = h.session.messages.flatMap((message) =>
			message.role === "toolResult"
				? [
						{
							isError: message.isError,
							text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
						},
					]
				: [],
		);
		expect(results).toEqual([
			{
				isError: true,
				text: "Timeout 120000 seconds is 33.3 hours: the timeout is in seconds, not milliseconds; nothing was run. For 120 seconds, call again with timeout: 120. (Whole thousands from 10000 up are taken for milliseconds; a command meant to run that long needs no timeout.)",
			},
			{ isError: false, text: "finished\n" },
		]);
		expect(existsSync(join(h.tempDir, "ran.txt"))).toBe(true);
	});

	it("pi#9785: `timeout: 30000` (8.3 hours) is refused the same way, and nothing runs; 5000 (not past 10000) and 10800 (3 hours, not whole thousands) are seconds and run", async () => {
		const refused = await bashCall({ command: "touch ran.txt; echo finished", timeout: 30000 });
		expect(refused).toEqual({
			isError: true,
			text: "Timeout 30000 seconds is 8.3 hours: the timeout is in seconds, not milliseconds; nothing was run. For 30 seconds, call again with timeout: 30. (Whole thousands from 10000 up are taken for milliseconds; a command meant to run that long needs no timeout.)",
		});
		expect(existsSync(join(h!.tempDir, "ran.txt"))).toBe(false);
		for (const timeout of [5000, 10800]) {
			h?.cleanup();
			expect(await bashCall({ command: "echo finished", timeout })).toEqual({ isError: false, text: "finished\n" });
		}
	});
});
