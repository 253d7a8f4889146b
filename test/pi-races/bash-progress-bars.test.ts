/**
 * Reports about progress output redrawn with carriage returns, replayed against Settle with a
 * real shell:
 * - dreb#114 (a pi fork), opencode#35246: a progress bar (tqdm, npm, curl) redraws its line with
 *   `\r`; the bash tool sent every frame to the model: thousands of near-identical frames filled the
 *   context, and past 50 KB pushed the command's real output out of the shown tail.
 * - lean-ctx#1140: `printf 'first\rsecond\nthird\n'` came back as `firstsecond`: the frames glued
 *   together, where a terminal shows `second`.
 */
import { readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bashCallsPerTest } from "./helpers.js";

const bashCall = bashCallsPerTest();

const NOTE = /\n\n\[Lines redrawn with \\r are shown as a terminal leaves them\. Full output: (\S+)\]$/;

describe("dreb#114 / opencode#35246: a progress bar's frames fill the bash result", () => {
	it("dreb#114: 2,000 frames redrawn with \\r (~80 KB) show as the bar's last frame between the lines around it, not cut; the full-output file keeps every frame", async () => {
		const { isError, text, details } = await bashCall(
			"echo start; for i in $(seq 1 2000); do printf '\\rprogress %4d/2000 [%-20s]' $i ''; done; echo; echo done",
		);
		expect(isError).toBe(false);
		const note = NOTE.exec(text);
		expect(note).not.toBeNull();
		expect(text.slice(0, note!.index)).toBe("start\nprogress 2000/2000 [                    ]\ndone\n");
		const full = readFileSync(note![1]!, "utf8");
		expect(full.length).toBeGreaterThan(80_000);
		expect(full).toContain("\rprogress    1/2000 [");
		expect(full.endsWith("\rprogress 2000/2000 [                    ]\ndone\n")).toBe(true);
		expect(details).toEqual({ fullOutputPath: note![1] });
		rmSync(note![1]!);
	});
});

describe("lean-ctx#1140: frames redrawn with \\r glued together", () => {
	it("lean-ctx#1140: `first\\rsecond` shows `second`; a shorter frame overwrites only its own width, as on a terminal", async () => {
		const { text } = await bashCall("printf 'first\\rsecond\\nthird\\nabcdef\\rXY\\n'");
		const note = NOTE.exec(text);
		expect(note).not.toBeNull();
		expect(text.slice(0, note!.index)).toBe("second\nthird\nXYcdef\n");
		expect(readFileSync(note![1]!, "utf8")).toBe("first\rsecond\nthird\nabcdef\rXY\n");
		rmSync(note![1]!);
	});

	it("lean-ctx#1140: Windows line endings (\\r\\n) are no redraw: the output reaches the model byte for byte, with no note", async () => {
		const { text, details } = await bashCall("printf 'one\\r\\ntwo\\r\\n'");
		expect(text).toBe("one\r\ntwo\r\n");
		expect(details).toBeUndefined();
	});
});
