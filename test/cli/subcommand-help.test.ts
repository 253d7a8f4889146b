/**
 * Each `settle` subcommand's help names every option that subcommand takes (real `settle` child
 * processes): an option the parser accepts but `--help` leaves out is one a user never finds
 * (`settle trace --output` was accepted while the help showed only `-o`).
 */
import { describe, expect, it } from "vitest";
import { TRACE_COMMAND_OPTIONS } from "../../src/cli/args.js";
import { PACKAGE_COMMANDS, packageCommandOptions } from "../../src/cli/package-commands.js";
import { runSettle, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-subcommand-help-");

/** The options a help text names: `-o`, `--output`, alone or in `[-l|--local]`, `[--cwd <dir>]`. */
function namedOptions(help: string): Set<string> {
	return new Set(help.match(/(?<![\w-])--?[a-z][\w-]*/g) ?? []);
}

function help(command: string): string {
	const run = runSettle([command, "--help"], { cwd: cli.project, agentDir: cli.agentDir });
	expect(run.code).toBe(0);
	return run.stdout;
}

describe("each subcommand's --help names the options it takes", () => {
	it("settle trace --help names -o and --output", () => {
		const named = namedOptions(help("trace"));
		for (const option of TRACE_COMMAND_OPTIONS) expect(named, option).toContain(option);
	});

	it("settle install|remove|uninstall|update|list --help name each option of that command (-l and --local, --cwd, --agent-dir)", () => {
		for (const command of PACKAGE_COMMANDS) {
			const named = namedOptions(help(command));
			for (const option of packageCommandOptions(command)) expect(named, `${command} ${option}`).toContain(option);
		}
	});
});
