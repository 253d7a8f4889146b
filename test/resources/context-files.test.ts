import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadProjectContextFiles as piLoadProjectContextFiles } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { loadProjectContextFiles } from "../../src/resources/context-files.js";
import { copyFixture } from "../settings/helpers.js";

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
});
