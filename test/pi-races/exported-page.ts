/**
 * The set-up the exported-page replays share: a local chat-completions server per test, `settle -p`
 * on `local/coder` against it, then `settle --export` of that session to one page.
 */
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { type CliProject, runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { startWireServer, type WireServer } from "../llm/wire/server.js";
import { sessionFilesUnder } from "./helpers.js";

export interface ExportReplay {
	readonly cli: CliProject;
	/** Starts this test's server (closed after it) and points `local/coder` at it; `fields` as in models.json. */
	serve(fields?: Record<string, unknown>): Promise<WireServer>;
	/** `settle -p <prompt>` (must succeed, nothing on stderr), then its session exported; the page's path. */
	printAndExport(prompt: string): Promise<string>;
}

export function useExportReplay(prefix: string): ExportReplay {
	const cli = useCliProject(prefix);
	let server: WireServer | undefined;
	afterEach(async () => {
		await server?.close();
		server = undefined;
	});
	return {
		cli,
		async serve(fields = {}) {
			server = await startWireServer();
			writeLocalProvider(cli.agentDir, `${server.url}/v1`, fields);
			return server;
		},
		async printAndExport(prompt) {
			const run = await runSettleAsync(["--model", "local/coder", "-p", prompt], {
				cwd: cli.project,
				agentDir: cli.agentDir,
			});
			expect(run.stderr).toBe("");
			expect(run.code).toBe(0);
			const [file] = sessionFilesUnder(cli.agentDir);
			const page = join(cli.project, "page.html");
			expect(cli.settle(["--export", file!, page]).code).toBe(0);
			return page;
		},
	};
}
