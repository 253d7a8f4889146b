/**
 * Which session a fork came from, as the chat shows it, replayed with real `settle -i` child
 * processes on real session files.
 *
 * codex#9330: Codex's `/status` named the session a fork was forked from, until the fork was
 * resumed: the resumed session started without it and the "Forked from" line was gone. Settle keeps
 * the link in the fork's header (`parentSession`); `/session` names it, in the run that forked and
 * in every later run that resumes the fork.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { bannerSessionFile, Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-fork-parent-link-");

function chat(args: string[]): Repl {
	return new Repl(["--faux", ...args], { cwd: cli.project, agentDir: cli.agentDir });
}

function headerOf(file: string): { id: string; parentSession?: string } {
	return JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string; parentSession?: string };
}

describe("codex#9330: a fork names its parent, resumed too", () => {
	it("codex#9330: /session names the file a --fork came from, and again once the fork is resumed with --session; a session never forked names none", async () => {
		const original = chat([]);
		await original.idle(0);
		const parent = bannerSessionFile(original.stdout);
		await original.say("plan the parser", "plan the parser\n>");
		expect(await original.say("/session")).not.toContain("forked from");
		expect(await original.end()).toBe(0);

		const fork = chat(["--fork", parent]);
		await fork.idle(0);
		const forked = bannerSessionFile(fork.stdout);
		await fork.say("try a second parser", "try a second parser\n>");
		expect(await fork.say("/session")).toContain(`\n  forked from: ${parent}\n`);
		expect(await fork.end()).toBe(0);
		expect(headerOf(forked).parentSession).toBe(parent);

		// The codex#9330 case: a later run resumes the fork.
		const resumed = chat(["--session", headerOf(forked).id]);
		await resumed.idle(0);
		expect(bannerSessionFile(resumed.stdout)).toBe(forked);
		expect(await resumed.say("/session")).toContain(`\n  forked from: ${parent}\n`);
		expect(await resumed.end()).toBe(0);
	});
});
