/**
 * pi's reports about what happens before the first prompt, replayed against real `settle` processes
 * (and, for the settings file, real processes running Settle's `SettingsManager`). pi#7139: a boolean
 * extension flag put before the prompt (`pi --plan "list the files here"`) took the prompt as its
 * value; plan mode turned on and the task never ran, without an error. pi#4163: `pi -p "--- hi"`
 * (a prompt starting with `---`, as a markdown file with YAML front matter does) exited 0 after the
 * session header only: the prompt was read as an unknown flag. pi#7384: two processes saving
 * different settings while `settings.json` did not exist yet both computed their update from nothing,
 * and the second write replaced the first: one setting lost. pi#4456: without internet, pi never
 * finished starting (the answer: set `PI_OFFLINE=1`). oh-my-pi#941 (a pi fork): a project reached
 * through a symlink was keyed by another path than the one its sessions were saved under, and
 * `--resume` silently found nothing; in Settle, `--cwd <link>` kept the link's path while
 * `cd <link>` gives the real one: two session folders, and `-c` did not find the other's session.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { cliBundle } from "../cli/cli-bundle.js";
import { cliCommand, ROOT, runSettle, trackChild, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { piParseArgs } from "../cli/pi-diff-pi.js";
import { persistedUserTexts } from "./helpers.js";

const cli = useCliProject("settle-pi-races-startup-");

/** A guard against a hang only (a run takes about a second). */
const HANG_GUARD_MS = 60_000;

function settle(...args: string[]): ReturnType<typeof runSettle> {
	return runSettle(args, { cwd: cli.project, agentDir: cli.agentDir, timeoutMs: HANG_GUARD_MS });
}

/** The report's extension: a boolean `--plan` flag; it says at start-up what value it got. */
function addPlanExtension(): void {
	mkdirSync(join(cli.project, ".settle", "extensions"), { recursive: true });
	writeFileSync(
		join(cli.project, ".settle", "extensions", "plan.ts"),
		`export default function (pi: any) {
	pi.registerFlag("plan", { type: "boolean", description: "Plan before acting" });
	pi.on("session_start", (_e: unknown, ctx: any) => ctx.ui.notify(\`plan=\${JSON.stringify(pi.getFlag("plan"))}\`));
}
`,
	);
}

describe("pi#7139: a boolean extension flag immediately before the prompt swallows it", () => {
	it("pi#7139: settle --plan 'list the files here' turns plan on AND sends the prompt, in either order", () => {
		// pi 0.73.1's parser gives the prompt to --plan as its value: no message left to send.
		expect(piParseArgs(["--plan", "list the files here"])).toMatchObject({ messages: [] });
		addPlanExtension();
		for (const args of [
			["--plan", "list the files here"],
			["list the files here", "--plan"],
		]) {
			const run = settle("--faux", "--approve", "--no-session", "-p", ...args);
			expect(run.code).toBe(0);
			// The faux model answers with the prompt it was sent.
			expect(run.stdout).toBe("list the files here\n");
			expect(run.stderr).toContain("[info] plan.ts: plan=true");
		}
	});
});

describe("pi#4163: pi -p silently no-ops when the prompt starts with ---", () => {
	it("pi#4163: settle -p '--- hi' and a prompt with YAML front matter are sent to the model, not read as flags", () => {
		const hi = settle("--faux", "--no-session", "-p", "--- hi");
		expect(hi).toEqual({ code: 0, stdout: "--- hi\n", stderr: "" });
		const spec = "---\ntitle: spec\n---\nSay exactly: ok";
		const frontMatter = settle("--faux", "--no-session", "-p", spec);
		expect(frontMatter).toEqual({ code: 0, stdout: `${spec}\n`, stderr: "" });
	});
});

/**
 * A child process that loads the settings, says so (`<script>.ready`), waits for `go` to exist, then saves one setting through Settle's
 * `SettingsManager` (`<setter>(<value>)`) into `agentDir`'s settings.json.
 */
/**
 * The writers import the bundled package (test/cli/cli-bundle.ts) under plain `node`: through tsx each
 * spent ~0.4 s of CPU loading Settle's sources. `SETTLE_TEST_CLI=sources` keeps the sources.
 */
const FROM_SOURCES = process.env.SETTLE_TEST_CLI === "sources";

function settingsWriter(dir: string, go: string, setter: string, value: unknown): Promise<number | null> {
	const script = join(dir, `writer-${setter}.${FROM_SOURCES ? "ts" : "mjs"}`);
	const settle = FROM_SOURCES ? join(ROOT, "src/settings/settings-manager.ts") : join(dirname(cliBundle()), "index.js");
	writeFileSync(
		script,
		`import { existsSync, writeFileSync } from "node:fs";
import { SettingsManager } from ${JSON.stringify(pathToFileURL(settle).href)};
const settings = SettingsManager.create(${JSON.stringify(cli.project)}, ${JSON.stringify(cli.agentDir)});
writeFileSync(${JSON.stringify(`${script}.ready`)}, "");
while (!existsSync(${JSON.stringify(go)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
settings[${JSON.stringify(setter)}](${JSON.stringify(value)});
`,
	);
	const loader = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
	const child = spawn(process.execPath, FROM_SOURCES ? ["--import", loader, script] : [script], {
		stdio: ["ignore", "ignore", "inherit"],
	});
	return trackChild(child);
}

describe("pi#7384: concurrent first writes to settings.json can lose unrelated settings", () => {
	it("pi#7384: six processes each save a different setting at once into a missing settings.json: every one is kept", async () => {
		const settingsFile = join(cli.agentDir, "settings.json");
		expect(existsSync(settingsFile)).toBe(false);
		const go = join(cli.dir, "go");
		const writes: [string, unknown, string][] = [
			["setTheme", "light", "theme"],
			["setQuietStartup", true, "quietStartup"],
			["setHideThinkingBlock", true, "hideThinkingBlock"],
			["setCollapseChangelog", true, "collapseChangelog"],
			["setShellPath", "/bin/sh", "shellPath"],
			["setDefaultThinkingLevel", "high", "defaultThinkingLevel"],
		];
		const exits = writes.map(([setter, value]) => settingsWriter(cli.dir, go, setter, value));
		// Every writer has loaded its settings (the file missing) before any of them saves.
		const ready = writes.map(([setter]) => join(cli.dir, `writer-${setter}.${FROM_SOURCES ? "ts" : "mjs"}.ready`));
		while (!ready.every((file) => existsSync(file))) await new Promise((resolve) => setTimeout(resolve, 10));
		writeFileSync(go, "");
		expect(await Promise.all(exits)).toEqual(writes.map(() => 0));
		const saved = JSON.parse(readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
		expect(saved).toEqual(Object.fromEntries(writes.map(([, value, key]) => [key, value])));
	});
});

describe("pi#4456: cannot start without internet", () => {
	it("pi#4456: in a network namespace with no network at all, settle --rpc with a real provider's model starts and answers get_state", () => {
		// The provider's host cannot be reached (nor resolved): only the first prompt would need it.
		writeLocalProvider(cli.agentDir, "http://provider.invalid/v1");
		const run = spawnSync(
			"unshare",
			["-rn", process.execPath, ...cliCommand(), "--rpc", "--no-session", "--model", "local/coder"],
			{
				cwd: cli.project,
				input: `${JSON.stringify({ id: "1", type: "get_state" })}\n`,
				encoding: "utf8",
				timeout: HANG_GUARD_MS,
				killSignal: "SIGKILL",
				env: { ...process.env, SETTLE_AGENT_DIR: cli.agentDir },
			},
		);
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		const [state] = run.stdout
			.split("\n")
			.filter(Boolean)
			.map(
				(line) =>
					JSON.parse(line) as { id?: string; success?: boolean; data?: { model?: { provider: string; id: string } } },
			);
		expect(state).toMatchObject({ id: "1", success: true, data: { model: { provider: "local", id: "coder" } } });
	});
});

describe("oh-my-pi#941: sessions not found when the project is reached through a symlink", () => {
	it("oh-my-pi#941: a session started with --cwd <link> is continued by settle -c run in <link>, and the other way round", () => {
		const link = join(cli.dir, "link");
		symlinkSync(cli.project, link);
		const first = runSettle(["--faux", "--cwd", link, "-p", "first"], {
			cwd: cli.dir,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(first.code).toBe(0);
		// `cd link && settle -c`: the shell's process.cwd() is the real folder.
		const second = runSettle(["--faux", "-c", "-p", "second"], {
			cwd: link,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(second).toEqual({ code: 0, stdout: "second\n", stderr: "" });
		const third = runSettle(["--faux", "--cwd", link, "-c", "-p", "third"], {
			cwd: cli.dir,
			agentDir: cli.agentDir,
			timeoutMs: HANG_GUARD_MS,
		});
		expect(third).toEqual({ code: 0, stdout: "third\n", stderr: "" });
		const sessions = join(cli.agentDir, "sessions");
		const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((name) =>
			name.endsWith(".jsonl"),
		);
		expect(files).toHaveLength(1);
		expect(persistedUserTexts(join(sessions, files[0]!))).toEqual(["first", "second", "third"]);
	});
});
