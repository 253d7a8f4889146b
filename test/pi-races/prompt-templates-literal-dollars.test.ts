// biome-ignore-all lint/suspicious/noTemplateCurlyInString: template placeholders like ${@:2} are the subject of these tests
/**
 * Dollar text in a prompt template's own body, replayed with the real `settle` CLI and pi 0.73.1's
 * (`pi-peer`) on the faux model, which echoes the prompt it got: stdout is what the model was sent.
 *
 * claude-code#78759: `costs $0.01/call` and awk's `'!seen[$0]++'` in a command reached the model
 * with `$0` replaced; claude-code#52226: no way to write a literal `$1` in a body (awk, bash).
 * pi 0.73.1 (and Settle) emptied every `$0`, though arguments count from `$1`.
 * opencode#9831: a meta-command telling the model "use $1, $2 … and $ARGUMENTS" sent `Use
 * my-new-cmd, , etc. … and  for all arguments`. What the user should see: `$0` as written, and a
 * backslash before a placeholder keeps it (Claude Code's documented opt-out).
 */
import { describe, expect, it } from "vitest";
import { runPiCli, runSettleCli, useDiffDirs, writeInBothAgents } from "../cli/pi-diff-process.js";

const dirs = useDiffDirs("settle-pi-races-template-literal-dollars-");

describe("claude-code#78759: dollar text in a template body", () => {
	it("claude-code#78759, claude-code#52226: `$0.01` and awk's `$0` reach the model as written, `\\$1.2M` too; `$1` is still the argument; pi 0.73.1 empties them", async () => {
		writeInBothAgents(
			dirs,
			"prompts/dedupe.md",
			"---\ndescription: Dedupe a file\n---\nSearches cost $0.01/call, revenue \\$1.2M.\nRun: awk '!seen[$0]++' $1\n",
		);
		const settle = await runSettleCli(dirs, ["--no-session", "-p", "/dedupe file.txt"]);
		expect(settle.stderr).toBe("");
		expect(settle.stdout).toBe("Searches cost $0.01/call, revenue $1.2M.\nRun: awk '!seen[$0]++' file.txt\n");

		const pi = await runPiCli(dirs, ["--no-session", "-p", "/dedupe file.txt"]);
		expect(pi.stdout).toBe("Searches cost .01/call, revenue \\file.txt.2M.\nRun: awk '!seen[]++' file.txt\n");
	});

	it("opencode#9831: a meta-command writing `\\$1, \\$2` and `\\$ARGUMENTS` tells the model about them as written, beside the filled `$1`", async () => {
		writeInBothAgents(
			dirs,
			"prompts/new-command.md",
			"Create a command named $1.\nUse \\$1, \\$2, etc. for positional arguments and \\$ARGUMENTS or \\${@:2} for the rest.\n",
		);
		const settle = await runSettleCli(dirs, ["--no-session", "-p", "/new-command deploy"]);
		expect(settle.stdout).toBe(
			"Create a command named deploy.\nUse $1, $2, etc. for positional arguments and $ARGUMENTS or ${@:2} for the rest.\n\n",
		);
		const pi = await runPiCli(dirs, ["--no-session", "-p", "/new-command deploy"]);
		expect(pi.stdout).toContain("Use \\deploy, \\, etc. for positional arguments and \\deploy or \\ for the rest.");
	});

	it("opencode#9831: a template whose placeholders are all escaped (or `$0`) takes none, so what was typed follows it after a blank line", async () => {
		writeInBothAgents(
			dirs,
			"prompts/explain.md",
			"---\ndescription: Explain\n---\nExplain \\$ARGUMENTS and awk's $0.\n",
		);
		const settle = await runSettleCli(dirs, ["--no-session", "-p", "/explain briefly"]);
		expect(settle.stdout).toBe("Explain $ARGUMENTS and awk's $0.\n\nbriefly\n");
	});
});
