/**
 * pi's reports about what a one-shot, RPC or chat run leaves behind, replayed against real `settle`
 * child processes on the faux model: `/new` inside a `--no-session` process wrote a session file
 * (pi#5045); `--mode json` stdout carried lines that are not JSON (pi#2482: package-manager chatter,
 * here an extension's `console.log` / `process.stdout.write`); a session exported with `--export`
 * lacked the system prompt a live `/export` shows (pi#3464). What the user should see: no file at all
 * in ephemeral mode, whatever the commands; a stdout every line of which parses; one page per
 * session, whichever way it is exported.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, runSettle, useCliProject } from "../cli/helpers.js";
import { Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-output-");

/** A guard against a hang only (each run takes about a second): a hung run is killed, its code null. */
const HANG_GUARD_MS = 60_000;

/** Every `.jsonl` file under `dir`, recursively (a missing folder has none). */
function jsonlFiles(dir: string): string[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return [];
	}
	return names.flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return jsonlFiles(path);
		return name.endsWith(".jsonl") ? [path] : [];
	});
}

describe("pi#5045: /new inside a --no-session process creates a persisted session", () => {
	it("pi#5045: settle --rpc --no-session: prompt, new_session, prompt again — both sessions answered, no session file anywhere", async () => {
		const client = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		const firstSettled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "1", type: "prompt", message: "before new" })).toMatchObject({ success: true });
		await firstSettled;
		expect(await client.request({ id: "2", type: "new_session" })).toMatchObject({
			success: true,
			data: { cancelled: false },
		});
		const secondSettled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "3", type: "prompt", message: "after new" })).toMatchObject({ success: true });
		await secondSettled;
		const state = await client.request({ id: "4", type: "get_state" });
		expect((state.data as { sessionFile?: string }).sessionFile).toBeUndefined();
		const messages = await client.request({ id: "5", type: "get_messages" });
		expect(JSON.stringify(messages.data)).toContain("after new");
		expect(JSON.stringify(messages.data)).not.toContain("before new");
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
		expect(jsonlFiles(cli.agentDir)).toEqual([]);
		expect(jsonlFiles(cli.project)).toEqual([]);
	});

	it("pi#5045: settle -i --no-session: a message, /new, another message, /quit — no session file anywhere", async () => {
		const chat = new Repl(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		await chat.say("before new", "before new\n>");
		await chat.say("/new");
		await chat.say("after new", "after new\n>");
		chat.send("/quit");
		expect(await chat.exited).toBe(0);
		expect(chat.stderr).toBe("");
		expect(jsonlFiles(cli.agentDir)).toEqual([]);
		expect(jsonlFiles(cli.project)).toEqual([]);
	});
});

describe("pi#2482: --mode json stdout carries lines that are not JSON", () => {
	it("pi#2482: an extension's console.log, console.info and process.stdout.write during a --mode json run go to stderr; every stdout line parses", () => {
		const chatty = join(cli.dir, "chatty.mjs");
		writeFileSync(
			chatty,
			`export default function (pi) {
	pi.on("session_start", () => {
		console.log("changed 1 package in 471ms");
		process.stdout.write("changed 265 packages in 8s\\n");
	});
	pi.on("agent_end", () => { console.info("agent_end chatter"); });
}
`,
		);
		const run = runSettle(["--faux", "--no-session", "-e", chatty, "--mode", "json", "-p", "hello"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run.code).toBe(0);
		const lines = run.stdout.trim().split("\n");
		const events = lines.map((line) => JSON.parse(line) as { type: string });
		expect(events[0]?.type).toBe("session");
		expect(events.at(-1)).toEqual({ type: "agent_settled" });
		expect(run.stderr.split("\n")).toEqual([
			"changed 1 package in 471ms",
			"changed 265 packages in 8s",
			"agent_end chatter",
			"",
		]);
	});
});

describe("pi#3464: a session exported with --export lacks the system prompt a live export shows", () => {
	it("pi#3464: settle --export of a session file writes the very page the live RPC export_html wrote, the system prompt and the tools it lists included", async () => {
		const sessionFile = join(cli.project, "run.jsonl");
		const client = new RpcClient(["--faux", "--session", sessionFile], { cwd: cli.project, agentDir: cli.agentDir });
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "1", type: "prompt", message: "Hello World" })).toMatchObject({ success: true });
		await settled;
		const live = join(cli.dir, "live.html");
		expect(await client.request({ id: "2", type: "export_html", outputPath: live })).toMatchObject({ success: true });
		expect(await client.end()).toBe(0);

		const offline = join(cli.dir, "offline.html");
		const run = runSettle(["--export", sessionFile, offline], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(run).toEqual({ code: 0, stdout: `Exported to: ${offline}\n`, stderr: "" });
		const page = readFileSync(offline, "utf8");
		expect(page).toBe(readFileSync(live, "utf8"));
		// The system prompt the model was sent (recorded in the file), with its list of tools.
		const recorded = readFileSync(sessionFile, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } })
			.find((entry) => entry.type === "message" && entry.message?.role === "system");
		const systemPrompt = recorded?.message?.content;
		expect(typeof systemPrompt).toBe("string");
		const firstLine = (systemPrompt as string).split("\n")[0]!;
		expect(firstLine.length).toBeGreaterThan(20);
		expect(page).toContain(firstLine);
		for (const tool of ["read", "bash", "edit", "write"]) expect(systemPrompt as string).toContain(`- ${tool}: `);
		expect(page).toContain("- bash: Run shell commands");
	});
});
