/**
 * Reports about settings and resources (models.json, SYSTEM.md / APPEND_SYSTEM.md, skills),
 * replayed against the real `settle` command (child processes) on a local OpenAI-compatible
 * endpoint (test/llm/wire/server.ts): what the user should see is read off the request the model
 * got and the process's output.
 *
 * oh-my-pi#3014: with a `SYSTEM.md`, the system prompt held only that file and the project context;
 * the skills, the appended instructions and the rest of the template were lost. pi#748:
 * `APPEND_SYSTEM.md` documented but never read. What the user should see: the project's
 * `SYSTEM.md` replaces the base prompt only; `APPEND_SYSTEM.md`, `AGENTS.md`, the skills, the
 * working directory and the date stay in it.
 *
 * gsd-2#5137: a provider-level `compat` in models.json was documented to apply to the provider's
 * models (a model's own `compat` winning field by field) but was silently ignored. What the user
 * should see: the provider's compat shaping every request of its models, a model's own compat
 * overriding one field and keeping the others.
 *
 * claude-code#67146: with the login shell zsh (`SHELL`), the Bash tool ran zsh: the model's bash
 * syntax failed, some of it silently (an unquoted `$LIST` not split, a loop run once). What the user
 * should see: the tool runs bash whatever `SHELL` says.
 *
 * pi#3521: the `bash` tool ignored `shellPath` from settings.json (a Git Bash at a path of its own)
 * while `!` commands used it. What the user should see: the model's `bash` calls run by the shell
 * `settings.json` names, with the command as pi passes it (`<shell> -c <command>`).
 *
 * pi#6458, pi#4353: a `shellPath` starting with `~` (`~/.local/bin/agent-shell`, one settings file
 * shared by machines whose home folders differ) was taken literally: "Custom shell path not found:
 * ~/…", every `bash` call failed. What the user should see: the `~` read as the home folder, the
 * model's `bash` call run by that shell.
 *
 * pi#239: with the working folder at or below the agent folder, the global `AGENTS.md` was put in
 * the system prompt twice (once as the global file, once found walking up from the cwd). The
 * dotfiles case: the agent folder is a symlink into the folder the user works in. What the user
 * should see: the file once.
 *
 * claude-code#25209, pi#3574: a project skill with the same name as a user (global) skill: both
 * offered, the user left to pick, or an unexplained conflict warning. What the user should see: the
 * project's skill wins (offered once, and what `/skill:name` expands), the user's is skipped with a
 * warning naming its file.
 *
 * bigpowers#108: skills whose front matter came after a few comment lines (`# story: …` then
 * `---`) were reported "description is required" and not loaded; the authors had to guess that the
 * block's place was the problem. What the user should see: the skill not offered to the model (as
 * in pi), a warning naming the file and saying the front matter must open it, at which line it is,
 * and what to move; other skills offered.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { chatBashCall } from "./helpers.js";

const cli = useCliProject("settle-pi-races-settings-resources-");
const server = useWireServer();

/** The system (or developer) message of a recorded chat-completions request. */
function systemMessage(index: number): { role: string; content: string } {
	const messages = server.requests[index]?.body.messages as { role: string; content: unknown }[];
	const first = messages[0]!;
	const content =
		typeof first.content === "string"
			? first.content
			: (first.content as { text: string }[]).map((part) => part.text).join("");
	return { role: first.role, content };
}

function writeSkill(root: string, folder: string, text: string): void {
	mkdirSync(join(root, folder), { recursive: true });
	writeFileSync(join(root, folder, "SKILL.md"), text);
}

describe("oh-my-pi#3014 / pi#748: SYSTEM.md replaces the base prompt only", () => {
	it("oh-my-pi#3014: settle -p with the project's SYSTEM.md and APPEND_SYSTEM.md: the request's system prompt starts with SYSTEM.md and keeps APPEND_SYSTEM.md, AGENTS.md, the skill, the cwd and the date", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const dot = join(cli.project, ".settle");
		mkdirSync(dot, { recursive: true });
		writeFileSync(join(dot, "SYSTEM.md"), "SYSTEM-FILE-MARKER: you are the release bot.\n");
		writeFileSync(join(dot, "APPEND_SYSTEM.md"), "APPEND-FILE-MARKER: answer in one line.\n");
		writeFileSync(join(cli.project, "AGENTS.md"), "AGENTS-MARKER: tabs, not spaces\n");
		writeSkill(
			join(dot, "skills"),
			"ship-it",
			"---\nname: ship-it\ndescription: SKILL-MARKER tags and publishes a release\n---\nSteps.\n",
		);
		server.reply(chatReply([{ type: "text", text: "released" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "ship"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toContain("released");
		const { content } = systemMessage(0);
		expect(content.startsWith("SYSTEM-FILE-MARKER: you are the release bot.")).toBe(true);
		expect(content).not.toContain("You are an expert coding assistant");
		for (const kept of ["APPEND-FILE-MARKER", "AGENTS-MARKER", "SKILL-MARKER", "ship-it"]) {
			expect(content).toContain(kept);
		}
		expect(content).toContain(`Current working directory: ${cli.project}`);
		expect(content).toMatch(/Current date: \d{4}-\d{2}-\d{2}/);
	});
});

describe("gsd-2#5137: a provider-level compat in models.json", () => {
	it("gsd-2#5137: settle -p: the provider's compat shapes its models' requests; a model's own compat overrides one field and keeps the others", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			// The provider's defaults: no developer role, the older max-tokens field.
			compat: { supportsDeveloperRole: false, maxTokensField: "max_tokens" },
			models: [
				{ id: "plain", reasoning: true, maxTokens: 4096 },
				{ id: "modern", reasoning: true, maxTokens: 4096, compat: { supportsDeveloperRole: true } },
			],
		});
		server.reply(chatReply([{ type: "text", text: "from plain" }]), chatReply([{ type: "text", text: "from modern" }]));
		const at = { cwd: cli.project, agentDir: cli.agentDir };

		const plain = await runSettleAsync(["--no-session", "--model", "local/plain", "-p", "hi"], at);
		expect(plain.stdout).toContain("from plain");
		expect(systemMessage(0).role).toBe("system");
		expect(server.requests[0]?.body.max_tokens).toBe(4096);
		expect(server.requests[0]?.body).not.toHaveProperty("max_completion_tokens");

		const modern = await runSettleAsync(["--no-session", "--model", "local/modern", "-p", "hi"], at);
		expect(modern.stdout).toContain("from modern");
		// The model's own field wins; the provider's other field still applies.
		expect(systemMessage(1).role).toBe("developer");
		expect(server.requests[1]?.body.max_tokens).toBe(4096);
		expect(server.requests[1]?.body).not.toHaveProperty("max_completion_tokens");
	});
});

describe("bigpowers#108: a skill whose front matter does not open the file", () => {
	it("bigpowers#108: settle -p: the skill with comment lines before `---` is not offered; the warning names its file and says the front matter must open it, at which line it is; a well-formed skill beside it is offered", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const skills = join(cli.project, ".settle", "skills");
		writeSkill(
			skills,
			"audit-code",
			"# story: e51s04\n# story: e45s18\n---\nname: audit-code\ndescription: AUDIT-MARKER self-review checklist\n---\n\n# Audit Code\n",
		);
		writeSkill(skills, "fix-bug", "---\nname: fix-bug\ndescription: FIX-MARKER reproduce, then fix\n---\nSteps.\n");
		// No front matter at all, a horizontal rule in the text: pi's warning alone, no hint.
		writeSkill(skills, "notes", "# Notes\n---\nSome text.\n---\n");
		server.reply(chatReply([{ type: "text", text: "checked" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "audit"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toContain("checked");
		const { content } = systemMessage(0);
		expect(content).toContain("FIX-MARKER");
		expect(content).not.toContain("AUDIT-MARKER");
		expect(run.stderr).toContain(join(skills, "audit-code", "SKILL.md"));
		// pi's text, then what is actually wrong: the block is there, just not at the top.
		expect(run.stderr).toContain(
			"description is required: the front matter must open the file, but its --- line is line 3; move the lines above it below the block.",
		);
		expect(run.stderr).toContain(`Warning: description is required (${join(skills, "notes", "SKILL.md")})`);
		expect(run.stderr).not.toContain("fix-bug");
	});
});

describe("pi#3521: the bash tool and settings.json's shellPath", () => {
	it("pi#3521: settle -p: the model's bash call runs through the shell settings.json names; its output reaches the model", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// The user's shell at a path of its own: it logs how it was called, then runs bash.
		const shell = join(cli.dir, "tools", "my-bash");
		const log = join(cli.dir, "shell-calls.log");
		mkdirSync(join(cli.dir, "tools"));
		writeFileSync(shell, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\necho VIA-MY-BASH\nexec /bin/bash "$@"\n`);
		chmodSync(shell, 0o755);
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ shellPath: shell }));
		server.reply(
			chatReply([chatBashCall("call_1", "echo tool-ran")], { finishReason: "tool_calls" }),
			chatReply([{ type: "text", text: "done" }]),
		);

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "run it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toContain("done");
		expect(readFileSync(log, "utf8")).toBe("-c echo tool-ran\n");
		const messages = server.requests[1]?.body.messages as { role: string; content: unknown }[];
		const result = JSON.stringify(messages.find((message) => message.role === "tool")?.content);
		expect(result).toContain("VIA-MY-BASH");
		expect(result).toContain("tool-ran");
	});
});

describe("pi#6458 / pi#4353: a shellPath under ~", () => {
	it("pi#6458: settle -p with shellPath ~/tools/my-bash in settings.json: the model's bash call runs through that shell in the home folder", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const home = join(cli.dir, "home");
		const log = join(cli.dir, "shell-calls.log");
		mkdirSync(join(home, "tools"), { recursive: true });
		writeFileSync(
			join(home, "tools", "my-bash"),
			`#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\necho VIA-HOME-BASH\nexec /bin/bash "$@"\n`,
		);
		chmodSync(join(home, "tools", "my-bash"), 0o755);
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ shellPath: "~/tools/my-bash" }));
		server.reply(
			chatReply([chatBashCall("call_1", "echo tool-ran")], { finishReason: "tool_calls" }),
			chatReply([{ type: "text", text: "done" }]),
		);

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "run it"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { HOME: home },
		});

		expect(run.stdout).toContain("done");
		expect(readFileSync(log, "utf8")).toBe("-c echo tool-ran\n");
		const messages = server.requests[1]?.body.messages as { role: string; content: unknown }[];
		const result = JSON.stringify(messages.find((message) => message.role === "tool")?.content);
		expect(result).not.toContain("not found");
		expect(result).toContain("VIA-HOME-BASH");
		expect(result).toContain("tool-ran");
	});
});

describe("claude-code#67146: the user's login shell is not bash", () => {
	it("claude-code#67146: settle -p with SHELL naming another shell (dash here; zsh in the report): the model's bash-syntax command runs in bash, unquoted words split and `[[ ]]` work", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		// zsh leaves `$LIST` whole (the loop ran once); dash has no `[[`: either is what the report saw.
		const command =
			'LIST="a b c"; for x in $LIST; do echo "item $x"; done; [[ -n $LIST ]] && echo "in bash $BASH_VERSION"';
		server.reply(
			chatReply([{ type: "tool_call", id: "call_1", name: "bash", arguments: { command } }], {
				finishReason: "tool_calls",
			}),
			chatReply([{ type: "text", text: "done" }]),
		);

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "list them"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { SHELL: "/bin/dash" },
		});

		expect(run.stdout).toContain("done");
		const messages = server.requests[1]?.body.messages as { role: string; content: unknown }[];
		const result = messages.find((message) => message.role === "tool")?.content;
		expect(result).toMatch(/^item a\nitem b\nitem c\nin bash \d+\.\S+\n$/);
	});
});

describe("pi#239: the global AGENTS.md when the cwd is inside the agent folder", () => {
	it("pi#239: settle -p in a folder below the agent folder, reached through a symlink (dotfiles): the global AGENTS.md is in the system prompt once", async () => {
		// ~/.settle/agent -> ~/dotfiles/agent, and the user works in ~/dotfiles/agent/extensions.
		const real = join(cli.dir, "dotfiles", "agent");
		mkdirSync(join(real, "extensions"), { recursive: true });
		symlinkSync(real, cli.agentDir);
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(join(real, "AGENTS.md"), "GLOBAL-RULES-MARKER: be brief\n");
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: join(real, "extensions"),
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toContain("ok");
		expect(systemMessage(0).content.split("GLOBAL-RULES-MARKER")).toHaveLength(2);
	});
});

describe("claude-code#25209 / pi#3574: a project skill named as a user skill", () => {
	it("claude-code#25209: settle -p: the project's `handoff` is offered once and expanded by /skill:handoff; the user's is skipped with a warning naming its file", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		const user = join(cli.agentDir, "skills");
		writeSkill(user, "handoff", "---\nname: handoff\ndescription: USER-HANDOFF any project\n---\nUSER-BODY\n");
		writeSkill(
			join(cli.project, ".settle", "skills"),
			"handoff",
			"---\nname: handoff\ndescription: PROJECT-HANDOFF writes STATUS.md\n---\nPROJECT-BODY\n",
		);
		server.reply(chatReply([{ type: "text", text: "handed off" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "/skill:handoff now"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.stdout).toContain("handed off");
		const { content } = systemMessage(0);
		expect(content.split("<name>handoff</name>")).toHaveLength(2);
		expect(content).toContain("PROJECT-HANDOFF");
		expect(content).not.toContain("USER-HANDOFF");
		const prompt = JSON.stringify(server.requests[0]?.body.messages.at(-1));
		expect(prompt).toContain("PROJECT-BODY");
		expect(prompt).not.toContain("USER-BODY");
		expect(run.stderr).toContain(`name "handoff" collision: ${join(user, "handoff", "SKILL.md")} is skipped`);
	});
});
