/**
 * Prompt template arguments as the user typed them, replayed with the real `settle` CLI and pi
 * 0.73.1's own CLI side by side (`pi-peer`), both offline on the faux model, which echoes the prompt
 * it got: stdout is the expanded template.
 *
 * openclaw#90468: arguments were split like shell words, so an apostrophe in prose (`don't`,
 * `user's`) opened a quote running to the next one: both apostrophes dropped, the words between
 * glued into one argument, `$1` and `$2` shifted (pi 0.73.1's parser, which OpenClaw's copied).
 *
 * prime-agent#2128 (its discussion #2106), pi-code#91: pi's `substituteArgs` put `$ARGUMENTS` in with a
 * replacement string, so `$$` in what the user typed became `$` and `` $` `` became the template text
 * before the placeholder (a price `100$$`, a shell snippet). gajae-code#3749: an argument that is
 * itself placeholder text (`/rename $ARGUMENTS $@`) was substituted again by the later passes.
 * What the user should see: the arguments as typed. Settle substitutes once, with a function.
 */
import { describe, expect, it } from "vitest";
import { runPiCli, runSettleCli, useDiffDirs, writeInBothAgents } from "../cli/pi-diff-process.js";

const dirs = useDiffDirs("settle-pi-races-template-arguments-");

/** The same template in both CLIs' global prompts folder. */
function template(name: string, body: string): void {
	writeInBothAgents(dirs, `prompts/${name}.md`, body);
}

describe("openclaw#90468: apostrophes in prompt template arguments", () => {
	it("openclaw#90468: `/review don't touch the user's API`: $1 is `don't`, $2 `touch`, $ARGUMENTS the words as typed; pi 0.73.1 sends `dont touch the users` as $1", async () => {
		template("review", "First: [$1] Second: [$2]\nAll: $ARGUMENTS");
		const prompt = "/review don't touch the user's API";

		const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
		expect(settle.code, settle.stderr).toBe(0);
		expect(settle.stdout).toBe("First: [don't] Second: [touch]\nAll: don't touch the user's API\n");

		const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
		expect(pi.code, pi.stderr).toBe(0);
		expect(pi.stdout).toBe("First: [dont touch the users] Second: [API]\nAll: dont touch the users API\n");
	});

	it("openclaw#90468: a quote that starts an argument still groups: `/review 'two words' it's`", async () => {
		template("review", "First: [$1] Second: [$2]");
		const settle = await runSettleCli(dirs, ["--no-session", "-p", "/review 'two words' it's"]);
		expect(settle.code, settle.stderr).toBe(0);
		expect(settle.stdout).toBe("First: [two words] Second: [it's]\n");
	});
});

describe("prime-agent#2128, pi-code#91, gajae-code#3749: dollar signs in template arguments", () => {
	it("prime-agent#2128, pi-code#91: `/budget raise to 100$$ from $80, then run $`date``: Settle sends the arguments as typed; pi 0.73.1 turns `$$` into `$` and `$`` into the text before the placeholder", async () => {
		template("budget", "Budget note: $ARGUMENTS");
		const prompt = "/budget raise to 100$$ from $80, then run $`date`";

		const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
		expect(settle.code, settle.stderr).toBe(0);
		expect(settle.stdout).toBe("Budget note: raise to 100$$ from $80, then run $`date`\n");

		const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
		expect(pi.code, pi.stderr).toBe(0);
		expect(pi.stdout).toBe("Budget note: raise to 100$ from $80, then run Budget note: date`\n");
	});

	it("gajae-code#3749: `/rename $ARGUMENTS $@`: $1 and $2 are the placeholder names as typed, not substituted again (pi 0.73.1 substitutes them)", async () => {
		template("rename", "Rename $1 to $2.");
		const prompt = "/rename $ARGUMENTS $@";

		const settle = await runSettleCli(dirs, ["--no-session", "-p", prompt]);
		expect(settle.code, settle.stderr).toBe(0);
		expect(settle.stdout).toBe("Rename $ARGUMENTS to $@.\n");

		const pi = await runPiCli(dirs, ["--no-session", "-p", prompt]);
		expect(pi.code, pi.stderr).toBe(0);
		// pi: $1 and $2 first, then `$ARGUMENTS` and each `$@` (one it just put in among them) again.
		expect(pi.stdout).toBe("Rename $ARGUMENTS $ARGUMENTS $@ to $ARGUMENTS $@.\n");
	});
});
