/**
 * claude-code#82846: a slash command typed after a space (` /help`, a tab before `/context`) was
 * not run: the line went to the model as a prompt, while a trailing space was tolerated. Real
 * `settle -i` child processes, the faux model echoing the prompt it got.
 *
 * Settle's chat already took `  /review a.ts` for the prompt template (not an unknown command), then
 * sent the line as typed; the session expands only text that starts with `/`, so the model got
 * `  /review a.ts`. pi's editor trims what it sends, so pi expands it. What the user should see: an
 * indented template or `/skill:` typed in the chat reaches the model expanded. `-p` and the SDK keep
 * pi's rule (text that does not start with `/` is a prompt as written).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-indented-slash-");

describe("claude-code#82846: a slash command after leading whitespace goes to the model as text", () => {
	it("claude-code#82846: in settle -i, `  /review a.ts` and a tab before `/skill:lint x` reach the model expanded; -p sends an indented line as written, as pi does", async () => {
		mkdirSync(join(cli.project, ".settle", "prompts"), { recursive: true });
		writeFileSync(join(cli.project, ".settle", "prompts", "review.md"), "Review $1 for bugs.\n");
		const skill = join(cli.project, ".settle", "skills", "lint", "SKILL.md");
		mkdirSync(join(skill, ".."), { recursive: true });
		writeFileSync(skill, "---\nname: lint\ndescription: Lints a file\n---\nLINT BODY\n");

		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const review = await chat.say("  /review a.ts", "\n>");
		expect(review).toContain("Review a.ts for bugs.\n");
		expect(review).not.toContain("  /review a.ts\n> ");
		const lint = await chat.say("\t/skill:lint x", "\n>");
		expect(lint).toContain("LINT BODY\n</skill>\n\nx\n");
		expect(await chat.end()).toBe(0);

		const printed = cli.settle(["--faux", "--no-session", "-p", "  /review a.ts"]);
		expect(printed).toEqual({ code: 0, stdout: "  /review a.ts\n", stderr: "" });
	});
});
