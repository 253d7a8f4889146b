/**
 * `settle --export` and RPC `export_html` as a user runs them: real child processes (the CLI from
 * its sources), real session files written by `settle -p` first. The messages and exit codes are
 * pi's (compared with pi's own CLI in test/cli/pi-differential-cases.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-export-cli-");

/** Runs one faux prompt with sessions in `<dir>/sessions`; returns the session file written. */
function sessionFile(prompt = "hello from the cli"): string {
	const sessions = join(cli.dir, "sessions");
	const run = cli.settle(["--faux", "--session-dir", sessions, "-p", prompt]);
	expect(run.code).toBe(0);
	const files = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
	expect(files).toHaveLength(1);
	return join(sessions, files[0]!);
}

const embedded = (html: string) =>
	JSON.parse(/<script type="application\/json" id="session-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as {
		entries: { type: string; message?: { role: string; content: unknown } }[];
	};

describe("settle --export <session.jsonl> [output.html]", () => {
	it("writes settle-session-<name>.html in the cwd, prints pi's line, exits 0; the session file is untouched", () => {
		const file = sessionFile();
		const before = readFileSync(file);
		const run = cli.settle(["--export", file]);
		const name = `settle-session-${basename(file, ".jsonl")}.html`;
		expect(run).toEqual({ code: 0, stdout: `Exported to: ${name}\n`, stderr: "" });
		const data = embedded(readFileSync(join(cli.project, name), "utf8"));
		const user = data.entries.find((entry) => entry.message?.role === "user");
		expect(JSON.stringify(user?.message?.content)).toContain("hello from the cli");
		expect(readFileSync(file)).toEqual(before);
	});

	it("the first message is the output path; as in pi, --export wins over -p, --mode rpc and --help", () => {
		const file = sessionFile();
		const run = cli.settle(["--mode", "rpc", "--export", file, "pages/one.html", "--help", "-p"]);
		expect(run).toEqual({ code: 0, stdout: "Exported to: pages/one.html\n", stderr: "" });
		expect(existsSync(join(cli.project, "pages", "one.html"))).toBe(true);
	});

	it("a missing file: pi's 'Error: File not found: <path>', exit 1, nothing written", () => {
		const run = cli.settle(["--export", "missing.jsonl"]);
		expect(run).toEqual({ code: 1, stdout: "", stderr: "Error: File not found: missing.jsonl\n" });
		expect(readdirSync(cli.project)).toEqual([]);
	});

	it("--export without a file is a usage error (exit 2), as every value option", () => {
		const run = cli.settle(["--export"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("Error: Option --export requires a value");
	});

	it("--help lists --export", () => {
		expect(cli.settle(["--help"]).stdout).toContain("--export <file> [out.html]");
	});
});

describe("RPC export_html", () => {
	it("answers { path } as pi does: the path given, or the default name in the cwd", async () => {
		const server = new RpcClient(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = server.next((line) => line.type === "agent_settled");
		await server.request({ id: "p", type: "prompt", message: "hello" });
		await settled;
		const out = join(cli.dir, "exports", "page.html");
		expect(await server.request({ id: "1", type: "export_html", outputPath: out })).toEqual({
			id: "1",
			type: "response",
			command: "export_html",
			success: true,
			data: { path: out },
		});
		const messages = embedded(readFileSync(out, "utf8")).entries.filter((entry) => entry.type === "message");
		expect(messages.map((entry) => entry.message?.role)).toEqual(["system", "user", "assistant"]);
		const state = (await server.request({ id: "2", type: "get_state" })).data as { sessionFile: string };
		const name = `settle-session-${basename(state.sessionFile, ".jsonl")}.html`;
		expect(await server.request({ id: "3", type: "export_html" })).toMatchObject({
			success: true,
			data: { path: name },
		});
		expect(existsSync(join(cli.project, name))).toBe(true);
		expect(await server.request({ id: "4", type: "export_html", outputPath: 3 })).toMatchObject({
			success: false,
			error: 'export_html: "outputPath" must be a string (got 3)',
		});
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
	});

	it("refuses with pi's text while nothing is written yet; an in-memory session (--no-session) is exported from memory", async () => {
		const fresh = new RpcClient(["--faux"], { cwd: cli.project, agentDir: cli.agentDir });
		expect(await fresh.request({ id: "1", type: "export_html" })).toEqual({
			id: "1",
			type: "response",
			command: "export_html",
			success: false,
			error: "Nothing to export yet - start a conversation first",
		});
		expect(await fresh.end()).toBe(0);

		const memory = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = memory.next((line) => line.type === "agent_settled");
		await memory.request({ id: "p", type: "prompt", message: "hello" });
		await settled;
		const exported = await memory.request({ id: "1", type: "export_html", outputPath: "memory.html" });
		expect(exported).toMatchObject({ command: "export_html", success: true, data: { path: "memory.html" } });
		expect(await memory.end()).toBe(0);
		expect(readdirSync(cli.project)).toEqual(["memory.html"]);
	});
});
