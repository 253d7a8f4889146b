/**
 * Skills with `disable-model-invocation: true` in their front matter: kept out of the model's
 * skills list, typed by the user as `/skill:name`. Replayed with real `settle` processes on the
 * faux model (which echoes the expanded prompt), a folder skill and one a local package ships:
 *
 * - claude-code#43875, hapi#341: the flag hid the skill from the session altogether: the user's
 *   own `/skill-name` found nothing.
 * - claude-code#92769: a plugin's (package's) flagged skills missing from the invocable list, so a
 *   typed name failed or matched another skill.
 * - rikkahub#1763: the flag ignored: flagged skills still listed to the model, which used them unasked.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baselinePrompts, RpcClient, useCliProject } from "../cli/helpers.js";
import { write } from "../cli/package-fixtures.js";

const cli = useCliProject("settle-pi-races-skills-model-invocation-");

function skill(file: string, name: string, description: string, hidden: boolean): void {
	const flag = hidden ? "disable-model-invocation: true\n" : "";
	write(file, `---\nname: ${name}\ndescription: ${description}\n${flag}---\n${name.toUpperCase()} BODY\n`);
}

/** `deploy` (flagged) and `lint` in the agent's skills folder; `to-spec` (flagged) in the installed package `kit`. */
function writeSkills(): void {
	skill(join(cli.agentDir, "skills", "deploy", "SKILL.md"), "deploy", "Ships to production", true);
	skill(join(cli.agentDir, "skills", "lint", "SKILL.md"), "lint", "Lints the code", false);
	const kit = join(cli.dir, "kit");
	write(join(kit, "package.json"), JSON.stringify({ name: "kit", version: "1.0.0", pi: { skills: ["./skills"] } }));
	skill(join(kit, "skills", "to-spec", "SKILL.md"), "to-spec", "Writes the spec", true);
	expect(cli.settle(["install", kit]).code).toBe(0);
}

describe("claude-code#43875: skills the model may not invoke", () => {
	it("claude-code#43875, claude-code#92769, rikkahub#1763: flagged skills (a folder's, a package's) are not in the system prompt, and /skill:deploy, /skill:to-spec expand them", () => {
		writeSkills();
		const settle = (prompt: string, ...args: string[]) => cli.settle(["--faux", "--no-session", ...args, "-p", prompt]);

		const run = settle("hi", "--mode", "json");
		expect(run.code).toBe(0);
		const [systemPrompt] = baselinePrompts(run.stdout);
		expect(systemPrompt).toContain("<name>lint</name>\n    <description>Lints the code</description>");
		expect(systemPrompt).not.toContain("deploy");
		expect(systemPrompt).not.toContain("Ships to production");
		expect(systemPrompt).not.toContain("to-spec");

		const deploy = settle("/skill:deploy staging");
		expect(deploy).toMatchObject({ code: 0, stderr: "" });
		expect(deploy.stdout).toContain(
			`<skill name="deploy" location="${join(cli.agentDir, "skills", "deploy", "SKILL.md")}">`,
		);
		expect(deploy.stdout).toContain("DEPLOY BODY\n</skill>\n\nstaging");
		expect(settle("/skill:to-spec the login").stdout).toContain("TO-SPEC BODY\n</skill>\n\nthe login");
	});

	it("claude-code#92769: over RPC, get_commands lists the flagged skills with the others, as the user can type them", async () => {
		writeSkills();
		const server = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const reply = (await server.request({ id: "1", type: "get_commands" })).data as {
			commands: { name: string; source: string; description?: string }[];
		};
		expect(reply.commands.map(({ name, description }) => ({ name, description }))).toEqual(
			expect.arrayContaining([
				{ name: "skill:deploy", description: "Ships to production" },
				{ name: "skill:lint", description: "Lints the code" },
				{ name: "skill:to-spec", description: "Writes the spec" },
			]),
		);
		expect(await server.end()).toBe(0);
	});
});
