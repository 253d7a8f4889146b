/**
 * pi#6820 in the mode it was reported in: a line typed into the interactive chat while threshold
 * auto-compaction runs. pi 0.80.5+ queued it in the TUI and flushed it with `prompt()` (no
 * `streamingBehavior`) at `compaction_end`, which threw "Agent is already processing" and left the
 * text stuck. A real `settle -i` child (stdin a pipe) on a faux script: the compaction is held by an
 * extension's `session_before_compact` until the typed line reaches the `input` hook, so the line
 * is typed during the compaction on every run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, PROMPT, Repl, readEntries, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-");

/** Holds a threshold compaction until the user types `typed during compaction`. */
const HOLD_COMPACTION_UNTIL_TYPED = `export default function (pi) {
	let release;
	const typed = new Promise((resolve) => { release = resolve; });
	pi.on("input", async (event) => {
		if (event.text === "typed during compaction") release();
		return { action: "continue" };
	});
	pi.on("session_before_compact", async (event) => {
		if (event.reason === "threshold") await typed;
		return undefined;
	});
}
`;

describe("pi#6820 in settle -i: a line typed during threshold auto-compaction", () => {
	it("pi#6820: a message typed during threshold compaction is delivered when compaction ends (settle -i)", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		// faux-1's window is 128000: the reserve is capped at half of it (pi#8651), so compaction is due
		// above 64000 tokens, which the second answer (~66000 tokens) crosses.
		writeFileSync(
			join(cli.agentDir, "settings.json"),
			JSON.stringify({ compaction: { reserveTokens: 124_000, keepRecentTokens: 1 } }),
		);
		const extension = join(cli.dir, "hold-compaction.ts");
		writeFileSync(extension, HOLD_COMPACTION_UNTIL_TYPED);
		const steps = join(cli.dir, "script.json");
		// Then the script runs out and the faux model echoes the last user message.
		writeFileSync(steps, JSON.stringify(["first answer", "y".repeat(264_000)]));
		const chat = new Repl(["--faux-script", steps, "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("one", "first answer\n");
		const from = chat.mark();
		chat.send("two");
		await chat.until("Compacting the context (threshold)…\n", from);
		chat.send("typed during compaction");
		const shown = await chat.idle(from, "Compacted (threshold)");
		const queued = shown.indexOf("Queued (steer): typed during compaction\n");
		const compacted = shown.indexOf("Compacted (threshold): ");
		const answered = shown.lastIndexOf("\ntyped during compaction\n");
		expect(queued).toBeGreaterThan(-1);
		expect(compacted).toBeGreaterThan(queued);
		expect(answered).toBeGreaterThan(compacted);
		expect(shown.endsWith(`\n${PROMPT}`)).toBe(true);
		expect(shown).not.toMatch(/Error|Failed to send|already processing/i);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");

		const file = bannerSessionFile(chat.stdout);
		expect(transcript(file).map((line) => line.slice(0, 40))).toEqual([
			"user: one",
			"assistant: first answer",
			"user: two",
			`assistant: ${"y".repeat(29)}`,
			"user: typed during compaction",
			"assistant: typed during compaction",
		]);
		// (The kept answer keeps the context over the threshold: the typed message's turn compacts again.)
		expect(readEntries(file).filter((entry) => entry.type === "compaction").length).toBeGreaterThanOrEqual(1);
	});
});
