/**
 * pi#6820 in the mode it was reported in: a line typed into the interactive chat while threshold
 * auto-compaction runs. pi 0.80.5+ queued it in the TUI and flushed it with `prompt()` (no
 * `streamingBehavior`) at `compaction_end`, which threw "Agent is already processing" and left the
 * text stuck. A real `settle -i` child (stdin a pipe) on a faux script: the compaction is held by an
 * extension's `session_before_compact` until the typed line reaches the `input` hook, so the line
 * is typed during the compaction on every run.
 *
 * pi#179, atomic#1984, command-code#356: a line typed while `/compact` runs was lost, or stayed
 * queued after the compaction until the user pressed Escape. The chat should keep it and send it
 * once the compaction ends.
 * Settle read the line only when the command ended, with no sign it was taken: it now says
 * "Queued (after /compact): …" at once (the same for an extension's command, and for a `!` bash
 * command: "Queued (after !make): …"), sent as before.
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

/** An extension's statement that waits until the file `release` exists (`existsSync` imported). */
const untilExists = (release: string) => `await new Promise((resolve) => {
	const poll = setInterval(() => {
		if (existsSync(${JSON.stringify(release)})) {
			clearInterval(poll);
			resolve();
		}
	}, 10);
});`;

/**
 * Holds a `/compact` until the file `release` exists (the chat reads no line while its command
 * runs, so the typed line cannot be what releases it).
 */
const holdManualCompactionUntil = (release: string) => `import { existsSync } from "node:fs";
export default function (pi) {
	pi.on("session_before_compact", async (event) => {
		if (event.reason !== "manual") return undefined;
		${untilExists(release)}
		return undefined;
	});
}
`;

/**
 * A chat sends `before` (answered by the script in turn), then `command` (given the file whose
 * creation ends it) and, while it runs, `typed`; then the command is released (once the
 * "Queued (after …)" notice is shown, with `queuedFirst`). Resolves with what is shown up to `last`.
 */
async function typeWhileCommandRuns(o: {
	/** An extension holding the command until the file it is given exists. */
	extension?: (release: string) => string;
	settings?: object;
	script: string[];
	before?: string[];
	command: (release: string) => string;
	/** Shown once the command runs: the line is typed after it. */
	started?: string;
	typed: string;
	queuedFirst?: boolean;
	last: string;
}): Promise<{ chat: Repl; shown: string }> {
	const release = join(cli.dir, "release");
	const args = ["--faux-script", join(cli.dir, "script.json")];
	if (o.extension) {
		mkdirSync(cli.agentDir, { recursive: true });
		if (o.settings) writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify(o.settings));
		writeFileSync(join(cli.dir, "hold.ts"), o.extension(release));
		args.push("-e", join(cli.dir, "hold.ts"));
	}
	// Then the script runs out and the faux model echoes the last user message.
	writeFileSync(join(cli.dir, "script.json"), JSON.stringify(o.script));
	const chat = new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
	await chat.idle(0);
	for (const [n, line] of (o.before ?? []).entries()) await chat.say(line, `${o.script[n]}\n`);
	const from = chat.mark();
	const command = o.command(release);
	chat.send(command);
	if (o.started) await chat.until(o.started, from);
	chat.send(o.typed);
	// The command is still held: the notice can only come from the line being read now.
	if (o.queuedFirst) await chat.until(`Queued (after ${command}): ${o.typed}\n`, from);
	writeFileSync(release, "");
	return { chat, shown: await chat.idle(from, o.last) };
}

/** `/compact` after two answered turns, held by an extension until released. */
const HELD_COMPACT = {
	extension: holdManualCompactionUntil,
	settings: { compaction: { keepRecentTokens: 1 } },
	script: ["first answer", "second answer"],
	before: ["one", "two"],
	command: () => "/compact",
	started: "Compacting",
	typed: "typed during /compact",
	last: "\ntyped during /compact\n",
};

describe("pi#179, atomic#1984, command-code#356 in settle -i: a line typed during /compact", () => {
	it("pi#179 / atomic#1984 / command-code#356: a message typed while /compact runs is kept and sent when the compaction ends, with no key to press", async () => {
		const { chat, shown } = await typeWhileCommandRuns(HELD_COMPACT);
		const compacted = shown.indexOf("Compacted");
		const answered = shown.lastIndexOf("\ntyped during /compact\n");
		expect(compacted).toBeGreaterThan(-1);
		expect(answered).toBeGreaterThan(compacted);
		expect(shown.endsWith(`\n${PROMPT}`)).toBe(true);
		expect(shown).not.toMatch(/Error|Failed to send|already processing/i);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");

		const file = bannerSessionFile(chat.stdout);
		expect(transcript(file)).toEqual([
			"user: one",
			"assistant: first answer",
			"user: two",
			"assistant: second answer",
			"user: typed during /compact",
			"assistant: typed during /compact",
		]);
		expect(readEntries(file).filter((entry) => entry.type === "compaction")).toHaveLength(1);
	});
});

/** A `/hold` command that runs until the file `release` exists. */
const holdCommandUntil = (release: string) => `import { existsSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("hold", {
		description: "waits for a file",
		handler: async () => {
			${untilExists(release)}
		},
	});
}
`;

describe("a line typed while a command runs is shown as taken (settle -i)", () => {
	it("while /compact runs: 'Queued (after /compact)' appears at once, before the compaction ends; the line is still sent after it", async () => {
		const { chat, shown } = await typeWhileCommandRuns({ ...HELD_COMPACT, queuedFirst: true });
		const queued = shown.indexOf("Queued (after /compact): typed during /compact\n");
		const compacted = shown.indexOf("Compacted");
		expect(compacted).toBeGreaterThan(queued);
		expect(shown.lastIndexOf("\ntyped during /compact\n")).toBeGreaterThan(compacted);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe("");
		expect(transcript(bannerSessionFile(chat.stdout)).slice(4)).toEqual([
			"user: typed during /compact",
			"assistant: typed during /compact",
		]);
	});

	it("while an extension's command runs: the same notice, and the line is sent once the command ends", async () => {
		const { chat, shown } = await typeWhileCommandRuns({
			extension: holdCommandUntil,
			script: ["first answer"],
			command: () => "/hold",
			typed: "typed during /hold",
			queuedFirst: true,
			last: "first answer\n",
		});
		expect(shown).not.toMatch(/Error/);
		expect(await chat.end()).toBe(0);
		expect(transcript(bannerSessionFile(chat.stdout))).toEqual(["user: typed during /hold", "assistant: first answer"]);
	});

	it("while a ! bash command runs: the notice names the command, and the line is sent once it ends", async () => {
		const { chat, shown } = await typeWhileCommandRuns({
			script: ["first answer"],
			command: (release) => `!until [ -e ${release} ]; do sleep 0.05; done`,
			typed: "typed during bash",
			queuedFirst: true,
			last: "first answer\n",
		});
		expect(shown).not.toMatch(/Error/);
		expect(await chat.end()).toBe(0);
		const sent = readEntries(bannerSessionFile(chat.stdout))
			.map((entry) => entry.message as { role?: string; content?: unknown } | undefined)
			.filter((message) => message?.role === "user")
			.map((message) => JSON.stringify(message?.content));
		expect(sent).toEqual([expect.stringContaining("typed during bash")]);
	});
});
