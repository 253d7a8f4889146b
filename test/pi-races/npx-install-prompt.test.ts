/**
 * opencode#42773: the model ran `npm exec` / `npx` for a package not installed; npm printed
 * "Ok to proceed? (y)" and waited for an answer nobody could type, so the bash call sat until its
 * timeout. Replayed with a real npm (its default config: an empty user config, a cache in the test's
 * folder) and a local package, run by the bash tool of a `settle -p` started inside a pseudo-terminal
 * (util-linux `script`): a command reading that terminal would wait on the prompt. With no terminal
 * on its stdin npm asks nothing: it says it will install the package and goes on, as documented.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, trackChild, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-npx-");

describe("opencode#42773: npx asking to install a package does not hang the call", () => {
	it("opencode#42773: `npm exec` of a package not installed runs it at once, npm saying it was not found and will be installed; no prompt, no timeout", async () => {
		const pkg = join(cli.dir, "say-moo");
		mkdirSync(pkg);
		writeFileSync(
			join(pkg, "package.json"),
			JSON.stringify({ name: "say-moo", version: "1.0.0", bin: { "say-moo": "moo.js" } }),
		);
		writeFileSync(join(pkg, "moo.js"), '#!/usr/bin/env node\nconsole.log("moo " + process.argv.slice(2).join(" "));\n');
		chmodSync(join(pkg, "moo.js"), 0o755);
		writeFileSync(join(cli.project, "package.json"), JSON.stringify({ name: "project", version: "1.0.0" }));
		const command = `npm exec --offline --package=${pkg} -- say-moo hello; echo exit:$?`;
		const script = join(cli.dir, "script.json");
		// The tool's timeout only bounds the run when the bug is back: npm would sit on its prompt.
		writeFileSync(
			script,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command, timeout: 20 } }] }, "done"]),
		);
		const userConfig = join(cli.dir, "npmrc");
		writeFileSync(userConfig, "");
		const out = join(cli.dir, "events.jsonl");
		const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
		const settle = [process.execPath, ...cliCommand(), "--faux-script", script, "--tools", "bash", "--no-session"];
		const line = `${[...settle, "--mode", "json", "-p", "moo"].map(quote).join(" ")} > ${quote(out)} 2>&1`;
		// `script` gives settle a pseudo-terminal; its stdin (our pipe) stays open, so a read from it would block.
		const child = spawn("script", ["-qec", line, "/dev/null"], {
			cwd: cli.project,
			env: {
				...process.env,
				SETTLE_AGENT_DIR: cli.agentDir,
				npm_config_cache: join(cli.dir, "npm-cache"),
				npm_config_userconfig: userConfig,
				npm_config_update_notifier: "false",
			},
			stdio: ["pipe", "ignore", "ignore"],
		});
		expect(await trackChild(child)).toBe(0);
		const [text] = readFileSync(out, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as { type: string; result?: { content: { text?: string }[] } })
			.filter((e) => e.type === "tool_execution_end")
			.map((e) => e.result?.content.map((c) => c.text ?? "").join("") ?? "");
		expect(text).not.toContain("timed out");
		expect(text).not.toContain("Ok to proceed");
		expect(text).toContain("was not found and will be installed");
		expect(text).toMatch(/^moo hello\nexit:0$/m);
	});
});
