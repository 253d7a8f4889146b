/**
 * `settle --list-models [search]` (pi's flag): the models there are credentials for, and the hint
 * to it when `--model` names one that is not there.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-list-models-");
const settle = cli.settle;

describe("settle --list-models", () => {
	it("lists provider/id with the context window, and writes no session", () => {
		expect(settle(["--faux", "--list-models"])).toEqual({
			code: 0,
			stdout: "faux/faux-1  128000 tokens\n",
			stderr: "",
		});
		expect(settle(["--faux", "--list-models", "FAUX-1"]).stdout).toBe("faux/faux-1  128000 tokens\n");
		const sessions = join(cli.agentDir, "sessions");
		expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
	});

	it("a search that matches nothing says so on stderr, exit 0", () => {
		expect(settle(["--faux", "--list-models", "opus"])).toEqual({
			code: 0,
			stdout: "",
			stderr: 'No model matches "opus" (1 available).\n',
		});
	});

	it("regression: no credentials at all exited 1 with an Error; now an empty list and the way to add a key, exit 0 (as pi)", () => {
		const keys = Object.keys(process.env).filter((name) =>
			/_(API_KEY|OAUTH_TOKEN|ACCESS_KEY_ID|CREDENTIALS)$/.test(name),
		);
		const run = runSettle(["--list-models"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: Object.fromEntries(keys.map((name) => [name, undefined])),
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(/^No models available/);
		expect(run.stderr).not.toMatch(/^Error:/);
	});

	it("--model naming a model that is not there points to it", () => {
		// A bare id no provider serves (provider/id of a known provider is a custom model id, as in pi).
		const run = settle(["--faux", "--model", "opus", "-p", "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toBe(
			"Error: Model not found: opus. Use provider/id; known providers: faux. settle --list-models lists the models you can use.\n",
		);
	});

	it("a broken settings file stops it like any other command", () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "settings.json"), "{");
		const run = settle(["--faux", "--list-models"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(/^Error: Could not read global settings .*settings\.json/);
	});
});
