/**
 * Reports about terminal escape codes in the bash tool's result, replayed against Settle with a
 * real shell:
 * - claude-code#26373: a Rust service's `tracing` logs, colored on stderr even into a pipe
 *   (`[2m2026-…Z[0m [34mDEBUG[0m …`): the codes went into the context with every line, filled it
 *   (~35 KB) and left the session unusable.
 * - cline#13346: a test runner forced to color (`npx vitest run`): `[1m[30m[46m RUN [49m…` and
 *   friends reached the model verbatim, 5–15% of a result's tokens spent on styling.
 * What the user should see: the text a terminal shows, and the raw bytes kept in a file.
 */
import { readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bashCallsPerTest } from "./helpers.js";

const bashCall = bashCallsPerTest();

const NOTE = /\n\n\[Terminal escape codes \(colors\) left out\. Full output: (\S+)\]$/;

describe("claude-code#26373: colored logs fill the context with escape codes", () => {
	it("claude-code#26373: 700 colored `tracing` lines on stderr (~67 KB raw, ~47 KB as text) come back whole as plain text, not cut; the full-output file keeps every code", async () => {
		const { isError, text, details } = await bashCall(
			"for i in $(seq -w 1 700); do printf '\\033[2m2026-02-17T18:25:15.784395Z\\033[0m \\033[34mDEBUG\\033[0m \\033[1;34menoch::job_runner\\033[0m: polling job %s\\n' $i >&2; done",
		);
		expect(isError).toBe(false);
		const note = NOTE.exec(text);
		expect(note).not.toBeNull();
		const shown = text.slice(0, note!.index);
		expect(shown).not.toContain("\x1b");
		const lines = shown.split("\n");
		expect(lines).toHaveLength(701);
		expect(lines[0]).toBe("2026-02-17T18:25:15.784395Z DEBUG enoch::job_runner: polling job 001");
		expect(lines[699]).toBe("2026-02-17T18:25:15.784395Z DEBUG enoch::job_runner: polling job 700");
		const full = readFileSync(note![1]!, "utf8");
		expect(Buffer.byteLength(full)).toBeGreaterThan(50 * 1024);
		expect(full.startsWith("\x1b[2m2026-02-17T18:25:15.784395Z\x1b[0m \x1b[34mDEBUG\x1b[0m")).toBe(true);
		expect(details).toEqual({ fullOutputPath: note![1] });
		rmSync(note![1]!);
	});
});

describe("cline#13346: a test runner forced to color sends its styling to the model", () => {
	it("cline#13346: a failing colored run (exit 1) is an error result in plain text; a window title and a hyperlink (OSC) leave their text only", async () => {
		const { isError, text } = await bashCall(
			[
				"printf '\\033[1m\\033[30m\\033[46m RUN \\033[49m\\033[39m\\033[22m \\033[36mv4.1.9 \\033[39m\\033[90m/workspace\\033[39m\\n'",
				"printf '\\033]0;vitest\\007\\033[31m\\342\\234\\227\\033[39m app.spec.tsx \\033]8;;file:///workspace/app.spec.tsx\\033\\\\app.spec.tsx:12\\033]8;;\\033\\\\\\n'",
				"printf '\\033[2m Test Files \\033[22m \\033[1m\\033[31m1 failed\\033[39m\\033[22m\\033[90m (1)\\033[39m\\n'",
				"exit 1",
			].join("\n"),
		);
		expect(isError).toBe(true);
		expect(text).not.toContain("\x1b");
		expect(text).toMatch(
			/^ RUN {2}v4\.1\.9 \/workspace\n✗ app\.spec\.tsx app\.spec\.tsx:12\n Test Files {2}1 failed \(1\)\n\n\n\[Terminal escape codes \(colors\) left out\. Full output: \S+\]\n\nCommand exited with code 1$/,
		);
		rmSync(/Full output: (\S+)\]/.exec(text)![1]!);
	});

	it("cline#13346: a colored bar that clears its line (`\\r\\x1b[K`, as npm and pip do) before a shorter frame shows that frame only, as on a terminal", async () => {
		const { text } = await bashCall(
			"printf 'install\\n\\033[36mdownloading\\033[0m 100%%\\r\\033[Kdone\\nabcdef\\r\\033[32mXY\\033[0m\\n'",
		);
		expect(text).toMatch(
			/^install\ndone\nXYcdef\n\n\n\[Lines redrawn with \\r are shown as a terminal leaves them\. Terminal escape codes \(colors\) left out\. Full output: \S+\]$/,
		);
		rmSync(/Full output: (\S+)\]/.exec(text)![1]!);
	});

	it("cline#13346: output with no escape code reaches the model byte for byte, with no note and no file", async () => {
		const { text, details } = await bashCall("printf 'plain [31m text, no ESC byte\\n'");
		expect(text).toBe("plain [31m text, no ESC byte\n");
		expect(details).toBeUndefined();
	});
});
