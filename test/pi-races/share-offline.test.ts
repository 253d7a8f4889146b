/**
 * pi#7217: pi's `/share` uploads the session page as a secret GitHub gist, shows its address once
 * and keeps no trace of it: the conversation stays readable by anyone with the link, and finding the
 * gist again to delete it meant searching gist.github.com by hand (pi-unshare was written for that).
 *
 * Settle uploads nothing (it sends only model requests). Replayed against a real `settle -i`: what
 * the user coming from pi should see on `/share` is that nothing was uploaded and how to get the same
 * page (`/export`), not "unknown command"; no request leaves, no page is written by it. An extension
 * that brings its own `/share` (a sharing service of the user's choice) still runs.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-share-offline-");

const SHARE_EXTENSION = (log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("share", {
		description: "Shares the session with the team's own service",
		handler: async () => appendFileSync(${JSON.stringify(log)}, "extension share\\n"),
	});
}
`;

describe("pi#7217: /share in settle -i", () => {
	it("pi#7217: /share says nothing was uploaded and names /export; it writes no page; /export then writes it", async () => {
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("hello");
		const said = await chat.say("/share");
		expect(said).toContain(
			"Error: /share is pi's upload of the session page to a secret GitHub gist; Settle uploads nothing. Write the page with /export [file.html] and share that file.",
		);
		expect(said).not.toContain("unknown command");
		expect(readdirSync(cli.project)).toEqual([]);
		expect(await chat.say("/export shared.html")).toContain(`Session exported to: ${join(cli.project, "shared.html")}`);
		expect(readFileSync(join(cli.project, "shared.html"), "utf8")).toContain("<!doctype html>");
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
		expect(chat.stderr).toBe("");
	});

	it("pi#7217: an extension's own /share runs, without the note", async () => {
		const log = join(cli.dir, "share.log");
		const extension = join(cli.dir, "share.mjs");
		writeFileSync(extension, SHARE_EXTENSION(log));
		const chat = new Repl(["--faux", "--no-session", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		expect(await chat.say("/share")).not.toContain("Error");
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
		expect(chat.stderr).toBe("");
		expect(existsSync(log) && readFileSync(log, "utf8")).toBe("extension share\n");
	});
});
