/**
 * `settle -i`'s `/export` and `/import` (pi's semantics), driven through a pipe as a user would
 * (real child process, the faux model), checked on the files on disk. Waits are on output markers.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";
import { bannerSessionFile, Repl, transcript } from "./interactive.helpers.js";

const cli = useCliProject("settle-interactive-export-");

function repl(args: string[]): Repl {
	return new Repl(args, { cwd: cli.project, agentDir: cli.agentDir });
}

/** The path a `/export` or `/import` line reports. */
function reported(output: string, pattern: RegExp): string {
	const match = pattern.exec(output);
	if (!match) throw new Error(`no match for ${pattern} in:\n${output}`);
	return match[1]!;
}

describe("settle -i: /export", () => {
	it("writes the whole session as an HTML page (a quoted path may hold spaces), or the branch as JSONL for a .jsonl path", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("hello <b>world</b>", "\n>");
		const sessionFile = bannerSessionFile(chat.stdout);

		const html = reported(await chat.say('/export "my page.html"'), /^Session exported to: (.+)$/m);
		expect(html).toBe(join(cli.project, "my page.html"));
		const page = readFileSync(html, "utf8");
		expect(page).toMatch(/^<!DOCTYPE html>/i);
		// The message travels as escaped data, never as markup.
		expect(page).toContain("hello \\u003cb>world\\u003c/b>");
		expect(page).not.toContain("<b>world</b>");

		const jsonl = reported(await chat.say("/export branch.jsonl"), /^Session exported to: (.+)$/m);
		expect(jsonl).toBe(join(cli.project, "branch.jsonl"));
		expect(transcript(jsonl)).toEqual(transcript(sessionFile));

		const fallback = reported(await chat.say("/export"), /^Session exported to: (.+)$/m);
		expect(fallback).toBe(
			join(
				cli.project,
				`settle-session-${sessionFile
					.split("/")
					.pop()!
					.replace(/\.jsonl$/, "")}.html`,
			),
		);
		expect(existsSync(fallback)).toBe(true);
		expect(await chat.end()).toBe(0);
	});

	it("an in-memory session is exported as HTML from memory, and the chat goes on", async () => {
		const chat = repl(["--faux", "--no-session"]);
		await chat.idle(0);
		await chat.say("hi", "hi\n>");
		expect(await chat.say("/export out.html")).toMatch(/^Session exported to: .*out\.html$/m);
		expect(readFileSync(join(cli.project, "out.html"), "utf8")).toMatch(/^<!DOCTYPE html>/i);
		await chat.say("still here", "still here\n>");
		expect(await chat.end()).toBe(0);
	});
});

describe("settle -i: /import", () => {
	it("asks first; yes copies the file into this project's sessions and continues there, no leaves everything as it was", async () => {
		// A session of another project: its file lives in another session folder.
		const other = join(cli.dir, "other");
		mkdirSync(other);
		const first = new Repl(["--faux"], { cwd: other, agentDir: cli.agentDir });
		await first.idle(0);
		await first.say("from the other session", "\n>");
		const source = bannerSessionFile(first.stdout);
		expect(await first.end()).toBe(0);

		const chat = repl(["--faux"]);
		await chat.idle(0);
		await chat.say("current", "current\n>");
		const current = bannerSessionFile(chat.stdout);

		let from = chat.mark();
		chat.send(`/import ${source}`);
		await chat.until(`Replace the current session with ${source}? [y/N] `, from);
		expect(await chat.say("n")).toContain("Import cancelled.");
		expect(await chat.say("/session")).toContain(`  file: ${current}\n`);

		from = chat.mark();
		chat.send(`/import ${source}`);
		await chat.until("[y/N] ", from);
		const imported = reported(await chat.say("y"), /^Imported into a new session \((.+)\)\.$/m);
		expect(imported).toContain(dirname(current));
		await chat.say("next", "next\n>");
		expect(await chat.end()).toBe(0);

		// The copy holds the other session and the new message; the original and the current one are untouched.
		const copies = readdirSync(dirname(current)).filter((name) => name === source.split("/").pop());
		expect(copies).toHaveLength(1);
		const copy = join(dirname(current), copies[0]!);
		expect(transcript(copy)).toEqual([
			"user: from the other session",
			"assistant: from the other session",
			"user: next",
			"assistant: next",
		]);
		expect(transcript(current)).toEqual(["user: current", "assistant: current"]);
		expect(transcript(source)).toEqual(["user: from the other session", "assistant: from the other session"]);
	});

	it("without a path or with a missing file: one error line that says what to do", async () => {
		const chat = repl(["--faux"]);
		await chat.idle(0);
		expect(await chat.say("/import")).toContain("Error: Usage: /import <path.jsonl>");
		const from = chat.mark();
		chat.send("/import nowhere.jsonl");
		await chat.until("[y/N] ", from);
		expect(await chat.say("y")).toMatch(/Error: .*nowhere\.jsonl/);
		expect(await chat.end()).toBe(0);
	});
});
