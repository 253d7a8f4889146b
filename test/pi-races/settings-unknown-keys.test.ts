/**
 * FerroxLabs/wayland#1069: unknown and misnested config keys were accepted in silence: a typo
 * (`modle`), or `base_url` one level off, left the default in force while the file seemed to say
 * otherwise, and nothing told the user. Settle's settings.json read the same way: `defaultModle`,
 * `compaction.enable` or `retry.timeoutMs` (a key of `retry.provider`) did nothing, without a word.
 * What that user should see: a warning per such key at start-up, naming the file and the key it
 * was probably meant as; a top-level key Settle does not know and nothing is close to (an
 * extension's own settings) stays quiet. Replayed against real `settle -p` processes on the faux
 * model.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-settings-unknown-keys-");

function warnings(stderr: string): string[] {
	return stderr.split("\n").filter((line) => line.startsWith("Warning:"));
}

describe("FerroxLabs/wayland#1069: misspelled and misnested settings keys", () => {
	it("FerroxLabs/wayland#1069: settings.json with defaultModle, compaction.enable and retry.timeoutMs: settle -p warns once per key, naming the key meant", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		const global = join(cli.agentDir, "settings.json");
		writeFileSync(
			global,
			JSON.stringify({
				defaultModle: "faux/faux-1",
				compaction: { enable: false, reserveTokens: 1000 },
				retry: { timeoutMs: 5000 },
				"pi-notify": { sound: true },
			}),
		);

		const run = cli.settle(["--faux", "--no-session", "-p", "hello"]);

		expect(run.code).toBe(0);
		expect(warnings(run.stderr)).toEqual([
			`Warning: Unknown setting "defaultModle" in ${global}: Settle does not read it, so it has no effect. Did you mean "defaultModel"? Rename it.`,
			`Warning: Unknown setting "compaction.enable" in ${global}: Settle does not read it, so it has no effect. Did you mean "compaction.enabled"? Rename it.`,
			`Warning: Unknown setting "retry.timeoutMs" in ${global}: Settle does not read it, so it has no effect. Did you mean "retry.provider.timeoutMs"? Rename it.`,
		]);
	});

	it("FerroxLabs/wayland#1069: a project's .settle/settings.json with a key inside a settings object no key is close to: warned, to fix or remove", () => {
		mkdirSync(join(cli.project, ".settle"), { recursive: true });
		const project = join(cli.project, ".settle", "settings.json");
		writeFileSync(project, JSON.stringify({ terminal: { bellOnDone: true } }));

		const run = cli.settle(["--faux", "--no-session", "-p", "hello"]);

		expect(run.code).toBe(0);
		expect(warnings(run.stderr)).toEqual([
			`Warning: Unknown setting "terminal.bellOnDone" in ${project}: Settle does not read it, so it has no effect. Fix or remove it.`,
		]);
	});
});
