/**
 * Session names over a session's life, replayed against Settle with real `settle` child processes
 * on real session files.
 *
 * claude-code#29922: a session renamed with `/rename` went back to its earlier
 * name in the picker once the context was compacted. claude-code#23610: the name was replaced after
 * the session was resumed and worked in. claude-code#39414: the resume picker did not show the name
 * at all, only the first message. Settle keeps the name in `session_info` entries of the file; the
 * latest one in the file is the name, through compactions and resumes.
 *
 * hermes-agent#66683 (PR): the /resume list printed stored session titles as they were, so a title
 * holding escape sequences could clear the screen, retitle the window or restyle the terminal.
 * pi's `appendSessionInfo` keeps a name's inner newlines and escapes (an extension's generated title).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, RESUME_QUESTION, Repl, readEntries, transcript } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-session-names-");

function chat(...args: string[]): Repl {
	return new Repl(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

describe("claude-code#29922, claude-code#23610: a session's name after compaction and resume", () => {
	it("claude-code#29922: /name, /compact, /name again: settle -r lists the new name; resumed from the list and continued with -c, the name stays and is written once per /name", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		const first = chat();
		await first.idle(0);
		await first.say("start the parser rewrite", "start the parser rewrite\n>");
		expect(await first.say("/name parser")).toContain("Session name: parser\n");
		await first.say("second step", "second step\n>");
		expect(await first.say("/compact", "Compacted")).toContain("Compacted (manual): ");
		expect(await first.say("/name parser rewrite")).toContain("Session name: parser rewrite\n");
		await first.say("after the compaction", "after the compaction\n>");
		expect(await first.end()).toBe(0);
		const file = bannerSessionFile(first.stdout);
		const id = (JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string }).id;

		const picker = chat("-r");
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toMatch(new RegExp(`  1\\. ${id}  .* msgs  parser rewrite: start the parser rewrite\n`));
		expect(await picker.say("1", "Resumed")).toContain(`Resumed ${id} (`);
		await picker.say("third step", "third step\n>");
		expect(await picker.end()).toBe(0);

		expect(runSettle(["--faux", "-c", "-p", "fourth step"], { cwd: cli.project, agentDir: cli.agentDir }).code).toBe(0);

		const again = chat("-r");
		expect(await again.until(RESUME_QUESTION)).toMatch(
			new RegExp(`  1\\. ${id}  .* msgs  parser rewrite: start the parser rewrite\n`),
		);
		again.send("");
		await again.until(">");
		expect(await again.end()).toBe(0);
		const entries = readEntries(file);
		expect(entries.filter((entry) => entry.type === "session_info").map((entry) => entry.name)).toEqual([
			"parser",
			"parser rewrite",
		]);
		expect(entries.filter((entry) => entry.type === "compaction")).toHaveLength(1);
		expect(transcript(file).slice(-4)).toEqual([
			"user: third step",
			"assistant: third step",
			"user: fourth step",
			"assistant: fourth step",
		]);
	});
});

describe("hermes-agent#66683: a stored session name holding a newline and escape sequences", () => {
	it("hermes-agent#66683: a name pi wrote with a newline and an OSC 52 (clipboard) sequence: settle -r lists the session on one line with the escapes shown, not sent; /session and /name show it the same way", async () => {
		expect(runSettle(["--faux", "-p", "first prompt"], { cwd: cli.project, agentDir: cli.agentDir }).code).toBe(0);
		const [folder] = readdirSync(join(cli.agentDir, "sessions"));
		const [name] = readdirSync(join(cli.agentDir, "sessions", folder!));
		const file = join(cli.agentDir, "sessions", folder!, name!);
		const id = (JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string }).id;
		// As pi 0.73.1 writes an extension's generated title: trimmed, nothing else changed.
		const written = pi.SessionManager.open(file);
		written.appendSessionInfo("Fix auth\nand tests \x1b]52;c;aGk=\x07\x1b[2J");
		expect(readEntries(file).at(-1)).toMatchObject({
			type: "session_info",
			name: "Fix auth\nand tests \x1b]52;c;aGk=\x07\x1b[2J",
		});

		const shown = "Fix auth and tests \u241b]52;c;aGk=\u2407\u241b[2J";
		const picker = chat("-r");
		const listed = await picker.until(RESUME_QUESTION);
		expect(listed).toContain(`  1. ${id}  `);
		expect(listed.split("\n").find((line) => line.includes(id))).toMatch(/ 2 msgs {2}.*: first prompt$/);
		expect(listed).toContain(`  ${shown}: first prompt\n`);
		expect(await picker.say("1", "Resumed")).toContain(`Resumed ${id} (`);
		expect(await picker.say("/session", "file:")).toContain(`Session ${id} "${shown}"\n`);
		expect(await picker.say("/name")).toContain(`Session name: ${shown}\n`);
		expect(await picker.end()).toBe(0);
		expect(picker.stdout).not.toContain("\x1b]52");
		expect(picker.stdout).not.toContain("\x1b[2J");
	});
});
