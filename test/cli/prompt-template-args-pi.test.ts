// biome-ignore-all lint/suspicious/noTemplateCurlyInString: template placeholders like ${1:-default} are the subject of these tests
/**
 * Prompt template arguments as the reports' users wrote them, side by side with pi 0.73.1 (its own
 * CLI on the faux model, offline): the same template in each agent folder's `prompts/`, invoked as
 * `-p "/name args"`; the faux model echoes the prompt it got, so stdout is the expanded template.
 * pi#6695: defaults (`${1:-…}`, `${@:-…}`, `${ARGUMENTS:-…}`, later pi's syntax) reached the model
 * as written. pi#9588: an argument holding `$&` or `$@` was substituted again.
 */
import { describe, expect, it } from "vitest";
import { runPiCli, runSettleCli, useDiffDirs, writeInBothAgents } from "./pi-diff-process.js";

const dirs = useDiffDirs("settle-template-args-pi-");

/** Writes `<name>.md` into both CLIs' global prompts folder. */
function template(name: string, body: string): void {
	writeInBothAgents(dirs, `prompts/${name}.md`, `---\ndescription: Testing positional args\n---\n${body}`);
}

/** What the model got for `prompt` (the faux model echoes it), from pi and from Settle. */
async function expanded(prompt: string): Promise<{ pi: string; settle: string }> {
	const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
	const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
	expect([pi.code, settle.code], pi.stderr + settle.stderr).toEqual([0, 0]);
	return { pi: pi.stdout, settle: settle.stdout };
}

// The report's template, as its user wrote it.
const TEST_ARGS = "$@\n\n${1:-default}\n\n${@:-default}\n\n${ARGUMENTS:-default}\n";

describe("pi#6695: prompt template defaults reach the model as written", () => {
	it("pi#6695: /test-args without arguments gets every default; with arguments, the arguments; pi 0.73.1 sends the placeholders as written", async () => {
		template("test-args", TEST_ARGS);
		const bare = await expanded("/test-args");
		expect(bare.settle).toBe("\n\ndefault\n\ndefault\n\ndefault\n");
		expect(bare.pi).toBe("\n\n${1:-default}\n\n${@:-default}\n\n${ARGUMENTS:-default}\n");

		const given = await expanded("/test-args This would be the arguments");
		const all = "This would be the arguments";
		expect(given.settle).toBe(`${all}\n\nThis\n\n${all}\n\n${all}\n`);
		expect(given.pi).toBe(`${all}\n\n\${1:-default}\n\n\${@:-default}\n\n\${ARGUMENTS:-default}\n`);
	});

	it("pi#6695: a missing argument takes its default, a given one replaces it; a default is never substituted again", async () => {
		template("review", "Review ${1:-the diff} for ${2:-$1}.\n");
		const settle = async (prompt: string) => (await runSettleCli(dirs, ["--no-session", "-p", prompt])).stdout;
		expect(await settle("/review")).toBe("Review the diff for $1.\n");
		expect(await settle("/review a.ts")).toBe("Review a.ts for $1.\n");
		expect(await settle("/review a.ts style")).toBe("Review a.ts for style.\n");
	});
});

describe("pi#9588: an argument's own `$` text is substituted again", () => {
	it("pi#9588: arguments holding `$&` and `$@` reach the model as typed; pi 0.73.1 turns `$&` into the placeholder's own text and substitutes the `$@` again", async () => {
		template("fix", "Fix: $ARGUMENTS\nFirst: $1\n");
		const { pi, settle } = await expanded("/fix $& $@");
		expect(settle).toBe("Fix: $& $@\nFirst: $&\n");
		expect(pi).toBe("Fix: $ARGUMENTS $@ $@\nFirst: $&\n");
	});
});
