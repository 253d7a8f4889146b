/**
 * opencode#28341: a session in Cyrillic, exported to JSON and imported again, failed to import, and
 * the exported file's text was corrupted (printed to the terminal it was fine). Replayed in real
 * `settle -i` processes (the faux model answers each prompt with its text): a prompt in Cyrillic,
 * Hebrew (right to left) and an emoji, `/export` to `.jsonl` and to `.html`, then `/import` of the
 * JSONL in another project. What that user should see: the same characters in the file, on the
 * page (real headless Chromium, from file://) and in the imported session, which goes on.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl, transcript } from "../cli/interactive.helpers.js";
import { onExportedPage } from "../inspect/chromium.js";

const cli = useCliProject("settle-export-non-latin-");

const TEXT = "Привет, мир! Экспорт сессии 👋🏽 שלום עולם";

describe("opencode#28341: a non-Latin session exported and imported again", () => {
	it("opencode#28341: Cyrillic, Hebrew and an emoji keep every character in /export .jsonl and .html, and /import of the JSONL elsewhere carries them on", async () => {
		const chat = new Repl(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say(TEXT, `${TEXT}\n>`);
		expect(await chat.say("/export conv.jsonl")).toContain("Session exported to: ");
		expect(await chat.say("/export conv.html")).toContain("Session exported to: ");
		expect(await chat.end()).toBe(0);

		const jsonl = join(cli.project, "conv.jsonl");
		expect(transcript(jsonl)).toEqual([`user: ${TEXT}`, `assistant: ${TEXT}`]);
		expect(readFileSync(jsonl).includes(Buffer.from(TEXT, "utf8"))).toBe(true);

		// biome-ignore lint/performance/useDomNodeTextContent: what is visible is the point
		const shown = await onExportedPage(join(cli.project, "conv.html"), (tab) => tab.locator("#entries").innerText());
		expect(shown.split(TEXT)).toHaveLength(3);

		const other = join(cli.dir, "other");
		mkdirSync(other);
		const next = new Repl(["--faux"], { cwd: other, agentDir: cli.agentDir });
		await next.idle(0);
		const from = next.mark();
		next.send(`/import ${jsonl}`);
		await next.until("[y/N] ", from);
		const imported = /^Imported into a new session \((.+)\)\.$/m.exec(await next.say("y"))?.[1];
		expect(imported).toBeDefined();
		await next.say("дальше", "дальше\n>");
		expect(await next.end()).toBe(0);
		expect(transcript(imported!)).toEqual([`user: ${TEXT}`, `assistant: ${TEXT}`, "user: дальше", "assistant: дальше"]);
	}, 90_000);
});
