/**
 * pi#1196: an extension command under a built-in's name (`/share` there; babysitter-pi's `/resume`,
 * pi-mcp-adapter's `/mcp` in the reports that followed) was listed with the other commands, yet
 * typing it ran the built-in, and nothing said so. What the user of `settle -i` should see: a
 * warning at start-up (and after `/reload`) naming the command, where it comes from and what to do;
 * `/help` listing only the extension commands that can be typed there. Replayed against a real
 * `settle -i` child process; `settle -p` still runs the extension's command, as the warning says.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettle, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-commands-");

const COMMANDS_EXTENSION = (log: string) => `import { appendFileSync } from "node:fs";
export default function (pi) {
	for (const name of ["resume", "deploy"]) {
		pi.registerCommand(name, {
			description: "the extension's " + name,
			handler: async () => appendFileSync(${JSON.stringify(log)}, "extension " + name + "\\n"),
		});
	}
}
`;

describe("pi#1196: an extension command shadowed by a built-in command", () => {
	it("pi#1196: settle -i warns once at start-up and after /reload about the extension's /resume, not /deploy; /help lists /deploy only; settle -p runs the extension's /resume", async () => {
		const log = join(cli.dir, "commands.log");
		writeFileSync(log, "");
		const extension = join(cli.dir, "commands.mjs");
		writeFileSync(extension, COMMANDS_EXTENSION(log));
		const warning = `Warning: The extension command /resume (${extension}) has the name of a built-in command: /resume here runs the built-in. Rename it to use it in settle -i (-p and --rpc run it).`;

		const chat = new Repl(["--faux", "--no-session", "-e", extension], { cwd: cli.project, agentDir: cli.agentDir });
		const startup = await chat.idle(0);
		expect(startup.split("\n").filter((line) => line.startsWith("Warning:"))).toEqual([warning]);
		const help = await chat.say("/help");
		const fromExtensions = help.slice(help.indexOf("From extensions"));
		expect(fromExtensions).toMatch(/\/deploy\s+the extension's deploy/);
		expect(fromExtensions).not.toContain("/resume");
		await chat.say("/deploy");
		const reloaded = await chat.say("/reload", "Reloaded:");
		expect(reloaded.split("\n").filter((line) => line.startsWith("Warning:"))).toEqual([warning]);
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
		expect(chat.stderr).toBe("");
		expect(readFileSync(log, "utf8")).toBe("extension deploy\n");

		const run = runSettle(["--faux", "--no-session", "-e", extension, "-p", "/resume"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: 60_000,
		});
		expect(run.code).toBe(0);
		expect(readFileSync(log, "utf8")).toBe("extension deploy\nextension resume\n");
	});
});
