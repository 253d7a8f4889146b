import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadProjectContextFiles as piLoadProjectContextFiles } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { loadProjectContextFiles } from "../../src/resources/context-files.js";
import { buildSystemPrompt } from "../../src/session/system-prompt.js";
import { copyFixture, tempDir } from "../settings/helpers.js";

describe("context files", () => {
	it("collects the global file first, then AGENTS.md / CLAUDE.md from the root down to cwd", () => {
		const project = copyFixture("nested");
		const agentDir = copyFixture("_agent");
		const cwd = join(project, "packages", "app", "src");
		const { agentsFiles, diagnostics } = loadProjectContextFiles({ cwd, agentDir });
		expect(diagnostics).toEqual([]);
		expect(agentsFiles[0]).toEqual({
			path: join(agentDir, "AGENTS.md"),
			content: "# Global rules\n\nAlways answer in English.\n",
		});
		// Folders above the temp copy have no context files on this machine; the fixture's are in order.
		expect(agentsFiles.slice(-3)).toEqual([
			{ path: join(project, "AGENTS.md"), content: "root rules\n" },
			{ path: join(project, "packages", "CLAUDE.md"), content: "packages rules (CLAUDE.md)\n" },
			{ path: join(project, "packages", "app", "AGENTS.md"), content: "app rules (AGENTS.md wins over CLAUDE.md)\n" },
		]);
		expect(agentsFiles.some((file) => file.path.endsWith(join("app", "CLAUDE.md")))).toBe(false);
		expect(agentsFiles).toEqual(piLoadProjectContextFiles({ cwd, agentDir }));
	});

	it("lists a file once when the agent folder is also an ancestor of cwd", () => {
		const project = copyFixture("nested");
		const cwd = join(project, "packages", "app");
		const { agentsFiles } = loadProjectContextFiles({ cwd, agentDir: project });
		expect(agentsFiles.filter((file) => file.path === join(project, "AGENTS.md"))).toHaveLength(1);
		expect(agentsFiles[0]!.path).toBe(join(project, "AGENTS.md"));
		expect(agentsFiles).toEqual(piLoadProjectContextFiles({ cwd, agentDir: project }));
	});

	it("skips a folder named AGENTS.md and uses the CLAUDE.md next to it", () => {
		const project = copyFixture("nested");
		const cwd = join(project, "packages", "app");
		// A folder named AGENTS.md cannot be read as a file: the CLAUDE.md next to it is used instead.
		mkdirSync(join(project, "packages", "AGENTS.md"));
		writeFileSync(join(project, "packages", "AGENTS.md", "x"), "");
		const { agentsFiles, diagnostics } = loadProjectContextFiles({ cwd, agentDir: join(project, "none") });
		expect(diagnostics).toEqual([]);
		expect(agentsFiles.map((file) => file.path).slice(-3)).toEqual([
			join(project, "AGENTS.md"),
			join(project, "packages", "CLAUDE.md"),
			join(project, "packages", "app", "AGENTS.md"),
		]);
	});

	it("an AGENTS.md saved with CRLF line endings (and a CLAUDE.md beside it) reaches the system prompt as pi's: the same file, its \\r\\n kept, only the trailing line break trimmed", async () => {
		const project = tempDir("settle-context-crlf-");
		const agentDir = tempDir("settle-context-crlf-agent-");
		writeFileSync(join(project, "AGENTS.md"), "# Rules\r\n\r\n- Use tabs.\r\n- No emoji.\r\n");
		writeFileSync(join(project, "CLAUDE.md"), "claude rules\n");
		const ours = loadProjectContextFiles({ cwd: project, agentDir }).agentsFiles;
		// pi reads one file per folder, AGENTS.md first: the CLAUDE.md beside it is not sent (as in Settle).
		expect(ours).toEqual(piLoadProjectContextFiles({ cwd: project, agentDir }));
		expect(ours.map((file) => file.path)).toEqual([join(project, "AGENTS.md")]);
		const pi = (await import(
			pathToFileURL(resolve("node_modules/@mariozechner/pi-coding-agent/dist/core/system-prompt.js")).href
		)) as { buildSystemPrompt(options: object): string };
		const section = `## ${join(project, "AGENTS.md")}\n\n# Rules\r\n\r\n- Use tabs.\r\n- No emoji.`;
		expect(pi.buildSystemPrompt({ cwd: project, contextFiles: ours })).toContain(`${section}\r\n\n\n`);
		expect(buildSystemPrompt({ cwd: project, contextFiles: ours })).toContain(`${section}\n</project_context>`);
	});
});
