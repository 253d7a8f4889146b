/**
 * Arguments typed after a prompt template that names none of them, replayed with the real `settle`
 * CLI and pi 0.73.1's own CLI side by side (`pi-peer`), both offline on the faux model, which
 * echoes the prompt it got: stdout is what the model was sent.
 *
 * mastra#13493: `/gh-debug-issue 123` with a template that uses no `$ARGUMENTS` / `$1` (its own
 * `$ISSUE` word instead): the `123` was dropped without a word, and the model worked on no issue.
 * tau#171: the same for templates with no argument variable. pi 0.73.1 drops them too. What the
 * user should see: the model gets what they typed. Settle puts it after the template's text, a
 * blank line between, as a `/skill:name`'s arguments follow the skill.
 */
import { describe, expect, it } from "vitest";
import { runPiCli, runSettleCli, useDiffDirs, writeInBothAgents } from "../cli/pi-diff-process.js";

const dirs = useDiffDirs("settle-pi-races-template-unused-arguments-");

/** The same template in both CLIs' global prompts folder. */
function template(name: string, body: string): void {
	writeInBothAgents(dirs, `prompts/${name}.md`, body);
}

describe("mastra#13493: arguments given to a template without placeholders", () => {
	it('mastra#13493, tau#171: `/gh-debug-issue 123 "login loop"` on a template naming $ISSUE: the model gets the template, then the arguments as typed; pi 0.73.1 drops them', async () => {
		template(
			"gh-debug-issue",
			"---\ndescription: Debug a GitHub issue\n---\nFetch GitHub issue $ISSUE and find its cause.\n",
		);
		const prompt = '/gh-debug-issue 123 "login loop"';

		const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
		expect(settle.code, settle.stderr).toBe(0);
		expect(settle.stdout).toBe('Fetch GitHub issue $ISSUE and find its cause.\n\n123 "login loop"\n');

		const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
		expect(pi.code, pi.stderr).toBe(0);
		expect(pi.stdout).toBe("Fetch GitHub issue $ISSUE and find its cause.\n");
	});

	it("mastra#13493: a template that uses an argument, or one given none, is sent as before; after one without front matter the arguments come one blank line below", async () => {
		template("review", "Review $1 for bugs.");
		template("tidy", "Tidy the imports.\n");
		const used = await runSettleCli(dirs, ["--no-session", "-p", "/review a.ts b.ts"]);
		expect(used.stdout).toBe("Review a.ts for bugs.\n");
		const none = await runSettleCli(dirs, ["--no-session", "-p", "/tidy"]);
		expect(none.stdout).toBe("Tidy the imports.\n\n");
		// No front matter: the body keeps its last line break (as pi), the arguments one blank line below.
		const given = await runSettleCli(dirs, ["--no-session", "-p", "/tidy src/a.ts"]);
		expect(given.stdout).toBe("Tidy the imports.\n\nsrc/a.ts\n");
	});
});
