/**
 * Reports about context and system-prompt files as they lie on disk, replayed through the public
 * runtime (real files, folders and links) and the real `settle` command.
 *
 * gemini-cli#4760, gemini-cli#16282: a folder named like the context file (`GEMINI.md/`) made every
 * start print "Could not read … EISDIR: illegal operation on a directory". What the user should
 * see: the folder skipped in silence, the `CLAUDE.md` beside it sent. pi 0.73.1 prints the same
 * EISDIR warning (`pi-peer` half below). The same for a folder named `SYSTEM.md` (a comment there):
 * the agent folder's `SYSTEM.md` should be used; pi 0.73.1 warns and sends the folder's path as the
 * whole system prompt.
 *
 * t3code#2052, rolldown#10451, openclaw#20955: a committed context-file symlink whose target had a
 * stray newline (`AGENTS.md\n`) resolved to nothing, and the harness "silently loads nothing" for
 * months. What the user should see: a warning naming the link and where it points (the newline
 * visible), the other name in the folder still sent.
 *
 * pi#7096: `AGENTS.md` was listed at start-up, but a `SYSTEM.md` (which replaces the whole prompt)
 * and an `APPEND_SYSTEM.md` were not: a file silently changed the agent's behaviour. Settle's banner
 * listed none of them. What the user should see: the banner and `/session` name every file shaping
 * the prompt, and after `/reload` what is on disk now.
 *
 * claude-code#30230: with `CLAUDE_CONFIG_DIR` pointing elsewhere, `~/.claude/CLAUDE.md` was loaded
 * too: two global files, ~4.6k tokens of stale rules. What the user should see: `SETTLE_AGENT_DIR`
 * replaces the default agent folder, so only its `AGENTS.md` is the global one.
 *
 * PI-Desktop#542: a host embedding pi read `AGENTS.md` but neither `~/.pi/agent/SYSTEM.md` nor
 * `APPEND_SYSTEM.md`: no error, the prompt unchanged. What an SDK host should see: the global files
 * shape its session's prompt; a project `APPEND_SYSTEM.md` is used in place of the global one.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	DefaultResourceLoader as PiResourceLoader,
	SettingsManager as PiSettingsManager,
} from "@mariozechner/pi-coding-agent";
import { describe, expect, it, vi } from "vitest";
// pi 0.73.1's own collector, for the side-by-side check (the module alone, not pi's package index).
import { loadProjectContextFiles as piLoadProjectContextFiles } from "../../node_modules/@mariozechner/pi-coding-agent/dist/core/resource-loader.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";
import { runtimePerTest, startRuntimeWithEmptyHome } from "../runtime/helpers.js";

const perTest = runtimePerTest();

/** The first request's system prompt and the runtime's start-up diagnostics, for a runtime in `cwd`. */
async function firstRequest(
	cwd: string,
	ws = perTest.workspace(),
): Promise<{ systemPrompt: string; diagnostics: string[] }> {
	const faux = createFauxProvider();
	const runtime = await perTest.runtime(startRuntimeWithEmptyHome(faux, ws, cwd));
	faux.setResponses([fauxAssistantMessage("ok")]);
	await runtime.session.prompt("hi");
	return {
		systemPrompt: faux.requests[0]!.systemPrompt ?? "",
		diagnostics: runtime.diagnostics.map((d) => `${d.message} ${d.path ?? ""}`),
	};
}

describe("gemini-cli#4760, gemini-cli#16282: a folder named like the context file", () => {
	it("gemini-cli#16282: a folder named AGENTS.md beside CLAUDE.md: CLAUDE.md reaches the model, no warning at start", async () => {
		const ws = perTest.workspace();
		const project = join(ws.root, "notes-project");
		mkdirSync(join(project, "AGENTS.md", "drafts"), { recursive: true });
		writeFileSync(join(project, "CLAUDE.md"), "- CLAUDE-RULE-16282: run the tests first.\n");
		const { systemPrompt, diagnostics } = await firstRequest(project, ws);
		expect(systemPrompt).toContain("CLAUDE-RULE-16282");
		expect(diagnostics.filter((d) => d.includes("AGENTS.md"))).toEqual([]);
	});

	it("gemini-cli#4760 (pi-peer): pi 0.73.1 warns 'Could not read … EISDIR' for the folder, then loads CLAUDE.md", () => {
		const ws = perTest.workspace();
		const project = join(ws.root, "notes-project");
		mkdirSync(join(project, "AGENTS.md"), { recursive: true });
		writeFileSync(join(project, "CLAUDE.md"), "- CLAUDE-RULE-16282\n");
		const errors = vi.spyOn(console, "error").mockImplementation(() => {});
		try {
			const files = piLoadProjectContextFiles({ cwd: project, agentDir: ws.agentDir }) as { path: string }[];
			expect(files.map((file) => file.path)).toContain(join(project, "CLAUDE.md"));
			expect(errors.mock.calls.map((call) => String(call[0])).join("\n")).toMatch(
				/Could not read .*AGENTS\.md.*EISDIR/,
			);
		} finally {
			errors.mockRestore();
		}
	});
});

describe("gemini-cli#4760: a folder named SYSTEM.md in the project folder", () => {
	it("gemini-cli#4760: a folder .settle/SYSTEM.md is passed over: the agent folder's SYSTEM.md is the base prompt, and nothing warns", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "SYSTEM.md"), "GLOBAL-SYSTEM-4760: you review code.\n");
		mkdirSync(join(ws.alpha, ".settle", "SYSTEM.md"), { recursive: true });
		const { systemPrompt, diagnostics } = await firstRequest(ws.alpha, ws);
		expect(systemPrompt.startsWith("GLOBAL-SYSTEM-4760")).toBe(true);
		expect(diagnostics.filter((d) => d.includes("SYSTEM.md"))).toEqual([]);
	});

	it("gemini-cli#4760 (pi-peer): pi 0.73.1 warns for the folder .pi/SYSTEM.md and takes its path as the whole system prompt", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "SYSTEM.md"), "GLOBAL-SYSTEM-4760\n");
		const project = join(ws.root, "pi-project");
		const folder = join(project, ".pi", "SYSTEM.md");
		mkdirSync(folder, { recursive: true });
		const errors = vi.spyOn(console, "error").mockImplementation(() => {});
		try {
			const pi = new PiResourceLoader({
				cwd: project,
				agentDir: ws.agentDir,
				settingsManager: PiSettingsManager.create(project, ws.agentDir),
			});
			await pi.reload();
			expect(pi.getSystemPrompt()).toBe(folder);
			expect(errors.mock.calls.map((call) => String(call[0])).join("\n")).toMatch(
				/Could not read system prompt file .*EISDIR/,
			);
		} finally {
			errors.mockRestore();
		}
	});
});

describe("PI-Desktop#542: an SDK host and the global SYSTEM.md / APPEND_SYSTEM.md", () => {
	it("PI-Desktop#542: a runtime created through the SDK sends the agent folder's SYSTEM.md as the base prompt and its APPEND_SYSTEM.md", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "SYSTEM.md"), "GLOBAL-SYSTEM-542: you are the desk assistant.\n");
		writeFileSync(join(ws.agentDir, "APPEND_SYSTEM.md"), "GLOBAL-APPEND-542: answer in French.\n");
		const { systemPrompt } = await firstRequest(ws.alpha, ws);
		expect(systemPrompt.startsWith("GLOBAL-SYSTEM-542")).toBe(true);
		expect(systemPrompt).toContain("GLOBAL-APPEND-542");
	});

	it("PI-Desktop#542: a project APPEND_SYSTEM.md is used in place of the global one (one file, as in pi); the global SYSTEM.md stays", async () => {
		const ws = perTest.workspace();
		writeFileSync(join(ws.agentDir, "SYSTEM.md"), "GLOBAL-SYSTEM-542\n");
		writeFileSync(join(ws.agentDir, "APPEND_SYSTEM.md"), "GLOBAL-APPEND-542\n");
		mkdirSync(join(ws.alpha, ".settle"), { recursive: true });
		writeFileSync(join(ws.alpha, ".settle", "APPEND_SYSTEM.md"), "PROJECT-APPEND-542\n");
		const { systemPrompt } = await firstRequest(ws.alpha, ws);
		expect(systemPrompt.startsWith("GLOBAL-SYSTEM-542")).toBe(true);
		expect(systemPrompt).toContain("PROJECT-APPEND-542");
		expect(systemPrompt).not.toContain("GLOBAL-APPEND-542");
	});
});

describe("t3code#2052 (pi-peer): a dangling context-file symlink in pi 0.73.1", () => {
	it("t3code#2052 (pi-peer): pi 0.73.1's collector passes over an AGENTS.md linked to 'CLAUDE.md\\n' without a word", () => {
		const ws = perTest.workspace();
		const project = join(ws.root, "linked-project");
		mkdirSync(project, { recursive: true });
		symlinkSync("CLAUDE.md\n", join(project, "AGENTS.md"));
		const errors = vi.spyOn(console, "error").mockImplementation(() => {});
		try {
			const files = piLoadProjectContextFiles({ cwd: project, agentDir: ws.agentDir }) as { path: string }[];
			expect(files.map((file) => file.path)).not.toContain(join(project, "AGENTS.md"));
			expect(errors).not.toHaveBeenCalled();
		} finally {
			errors.mockRestore();
		}
	});
});

describe("t3code#2052, rolldown#10451: a context-file symlink that resolves to nothing", () => {
	const cli = useCliProject("settle-pi-races-context-links-");
	const server = useWireServer();

	function systemText(index: number): string {
		const messages = server.requests[index]?.body.messages as { content: unknown }[];
		const first = messages[0]!.content;
		return typeof first === "string" ? first : (first as { text: string }[]).map((part) => part.text).join("");
	}

	it("t3code#2052: settle -p with AGENTS.md linked to 'CLAUDE.md\\n' (the committed newline) beside CLAUDE.md: CLAUDE.md is sent and stderr names the broken link and its target", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(join(cli.project, "CLAUDE.md"), "LINKED-RULES-2052: use pnpm\n");
		symlinkSync("CLAUDE.md\n", join(cli.project, "AGENTS.md"));
		server.reply(chatReply([{ type: "text", text: "done" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("done");
		expect(systemText(0)).toContain("LINKED-RULES-2052");
		expect(run.stderr).toContain('AGENTS.md is a symbolic link to "CLAUDE.md\\n", which does not exist');
		expect(run.stderr).toContain(join(cli.project, "AGENTS.md"));
	});

	it("rolldown#10451: settle -p with only a dangling AGENTS.md link: the run answers, and stderr says the rules were not read and how to fix the link", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		symlinkSync("docs/moved/CLAUDE.md", join(cli.project, "AGENTS.md"));
		server.reply(chatReply([{ type: "text", text: "done" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});

		expect(run.code).toBe(0);
		expect(run.stdout).toContain("done");
		expect(run.stderr).toContain('AGENTS.md is a symbolic link to "docs/moved/CLAUDE.md", which does not exist');
		expect(run.stderr).toContain("fix the link");
	});
});

describe("pi#7096: the files shaping the system prompt, on screen", () => {
	const cli = useCliProject("settle-pi-races-prompt-files-");

	it("pi#7096: settle -i names the context files, the project's SYSTEM.md and the global APPEND_SYSTEM.md in its banner; /session after /reload drops the SYSTEM.md removed", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(join(cli.agentDir, "AGENTS.md"), "global rules\n");
		writeFileSync(join(cli.agentDir, "APPEND_SYSTEM.md"), "answer briefly\n");
		writeFileSync(join(cli.project, "AGENTS.md"), "project rules\n");
		mkdirSync(join(cli.project, ".settle"));
		const system = join(cli.project, ".settle", "SYSTEM.md");
		writeFileSync(system, "You are the release bot.\n");
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });

		const banner = (await chat.idle(0)).split("\n");
		expect(banner).toContain(`  context files: ${join(cli.agentDir, "AGENTS.md")}, ${join(cli.project, "AGENTS.md")}`);
		expect(banner).toContain(`  system prompt: ${system} (replaces the base prompt)`);
		expect(banner).toContain(`  appended to the system prompt: ${join(cli.agentDir, "APPEND_SYSTEM.md")}`);

		rmSync(system);
		await chat.say("/reload", "Reloaded");
		const shown = (await chat.say("/session")).split("\n");
		expect(shown).toContain(`  context files: ${join(cli.agentDir, "AGENTS.md")}, ${join(cli.project, "AGENTS.md")}`);
		expect(shown.filter((line) => line.startsWith("  system prompt:"))).toEqual([]);
		expect(shown).toContain(`  appended to the system prompt: ${join(cli.agentDir, "APPEND_SYSTEM.md")}`);
		expect(await chat.end()).toBe(0);
	});

	it("pi#7096: settle -i --no-context-files with text given to --system-prompt: the banner says no context files and names no prompt file", async () => {
		writeFileSync(join(cli.project, "AGENTS.md"), "project rules\n");
		const chat = new Repl(["--faux", "--no-session", "--no-context-files", "--system-prompt", "Be terse."], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const banner = (await chat.idle(0)).split("\n");
		expect(banner).toContain("  context files: none");
		expect(banner.filter((line) => line.startsWith("  system prompt:"))).toEqual([]);
		expect(await chat.end()).toBe(0);
	});
});

describe("claude-code#30230: SETTLE_AGENT_DIR and the default agent folder's AGENTS.md", () => {
	const cli = useCliProject("settle-pi-races-agent-dir-override-");
	const server = useWireServer();

	it("claude-code#30230: settle -p with SETTLE_AGENT_DIR set sends that folder's AGENTS.md; ~/.settle/agent/AGENTS.md (and ~/.pi/agent's) is not read", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`);
		writeFileSync(join(cli.agentDir, "AGENTS.md"), "MISSION-RULES-30230: this mission's folder.\n");
		const home = join(cli.dir, "home");
		for (const folder of [".settle", ".pi"]) {
			mkdirSync(join(home, folder, "agent"), { recursive: true });
			writeFileSync(join(home, folder, "agent", "AGENTS.md"), `DEFAULT-RULES-30230 in ${folder}\n`);
		}
		server.reply(chatReply([{ type: "text", text: "ok" }]));

		const run = await runSettleAsync(["--no-session", "--model", "local/coder", "-p", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { HOME: home },
		});

		expect(run.code).toBe(0);
		const messages = server.requests[0]!.body.messages as { content: unknown }[];
		const system = JSON.stringify(messages[0]!.content);
		expect(system).toContain("MISSION-RULES-30230");
		expect(system).not.toContain("DEFAULT-RULES-30230");
	});
});
