/**
 * Reports about the bash tool's `timeout` parameter, replayed against Settle with a real shell:
 * - pi#6181: a timeout over what Node's timer can hold (2^31 - 1 ms, about 24.8 days; a model's
 *   `timeout: 99999999`) fired after 1 ms: the command was killed at once and the result said it
 *   had timed out after 99999999 seconds.
 * - Tianshu-harness#187: `timeout: 0` (a model's "no limit") went to the timer as is and fired on the
 *   next tick: the command was killed at once, its result near empty with exit code -1, which looked
 *   like the command itself failing. Held: a timeout of 0 or below is no timeout in Settle (and pi).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettleError } from "../../src/errors.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { modelBashCall } from "./helpers.js";

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
