/**
 * What the `settle` command tells a command-line user who arrives from pi (a real child process,
 * the bundle of the current sources): an untrusted project's extensions in one warning that says
 * how to trust it from the command line, an "unknown" flag that trust kept from loading, pi's
 * options Settle lacks (with what to use instead, even without a prompt), and `--help` listing the
 * project's extension flags as pi's does.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSettle } from "./helpers.js";

let dir: string;
let agentDir: string;
let project: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-cli-guidance-"));
	agentDir = join(dir, "agent");
	project = join(dir, "project");
	mkdirSync(project);
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

function settle(args: string[]) {
	return runSettle(args, { cwd: project, agentDir });
}

/**
 * A project extension registering `--plan` (another name, `--plan-a` for a.ts, so two of them do not
 * conflict), which reports that it ran.
 */
function addPlanExtension(name = "plan.ts"): void {
	const flag = name === "plan.ts" ? "plan" : `plan-${name.replace(/\.ts$/, "")}`;
	mkdirSync(join(project, ".settle", "extensions"), { recursive: true });
	writeFileSync(
		join(project, ".settle", "extensions", name),
		`export default function (pi: any) {
	pi.registerFlag("${flag}", { type: "boolean", description: "Plan before acting" });
	pi.on("session_start", (_e: unknown, ctx: any) => ctx.ui.notify(\`${name} ran, plan=\${pi.getFlag("${flag}")}\`));
}
`,
	);
}

describe("an untrusted project's extensions", () => {
	it("one warning names them all and says how to trust the project from the command line; its trust.json advice works", () => {
		addPlanExtension("a.ts");
		addPlanExtension("b.ts");
		const run = settle(["--faux", "-p", "hi"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("hi\n");
		const warnings = run.stderr.split("\n").filter((line) => line.startsWith("Warning:"));
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain(
			"is not trusted, so its extensions were not loaded (.settle/extensions/a.ts, .settle/extensions/b.ts).",
		);
		expect(warnings[0]).toContain("Run settle with --approve to trust it for this run");
		expect(warnings[0]).not.toContain("SDK");
		expect(warnings[0]).not.toContain("ProjectTrustStore");

		// Doing what it says: the folder it names, `true`, in the trust.json it names.
		const advice = /add ("[^"]+"): true to (\S+) \(or set/.exec(warnings[0]!);
		expect(advice).not.toBeNull();
		expect(advice![2]).toBe(join(agentDir, "trust.json"));
		writeFileSync(advice![2]!, `{ ${advice![1]}: true }\n`);
		const trusted = settle(["--faux", "-p", "hi"]);
		expect(trusted.stderr).not.toContain("Warning");
		expect(trusted.stderr).toContain("[info] a.ts: a.ts ran");
		expect(trusted.stderr).toContain("[info] b.ts: b.ts ran");
	});

	it("a code-running project setting it ignores gives the same command-line advice", () => {
		mkdirSync(join(project, ".settle"), { recursive: true });
		writeFileSync(join(project, ".settle", "settings.json"), '{ "shellPath": "/bin/sh" }\n');
		const run = settle(["--faux", "-p", "hi"]);
		expect(run.code).toBe(0);
		expect(run.stderr).toMatch(
			/^Warning: Ignored "shellPath" in .*: this setting runs code and the project is not trusted\. Run settle with --approve to trust it for this run; to trust it from now on, add ".*": true to .*trust\.json/m,
		);
		expect(run.stderr).not.toContain("SDK");
	});

	it("a flag of an extension trust kept from loading: unknown (exit 2), and the error says why and what to do", () => {
		addPlanExtension();
		const run = settle(["--faux", "-p", "hi", "--plan"]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("Error: Unknown option: --plan\n");
		expect(run.stderr).toMatch(
			/is not trusted, so its extensions were not loaded and their flags are unknown: run settle with --approve/,
		);
		const approved = settle(["--faux", "--approve", "-p", "hi", "--plan"]);
		expect(approved.code).toBe(0);
		expect(approved.stderr).toContain("[info] plan.ts: plan.ts ran, plan=true");
	});

	it("regression: --no-approve printed the trust hint on every run, though the user chose not to trust the project; the same for trust.json's false and defaultProjectTrust never", () => {
		addPlanExtension();
		writeFileSync(join(project, ".settle", "settings.json"), '{ "shellPath": "/bin/sh", "sessionDir": "s" }\n');
		// Undecided (defaultProjectTrust "ask"): the hint says what was left out and how to trust it.
		const undecided = settle(["--faux", "-p", "hi"]);
		expect(undecided.stderr.match(/^Warning: .*--approve/gm)).toHaveLength(3);

		const refused = settle(["--faux", "--no-approve", "-p", "hi"]);
		expect(refused).toEqual({ code: 0, stdout: "hi\n", stderr: "" });
		// Remembered as not trusted, or never trusting projects: chosen too.
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "trust.json"), `${JSON.stringify({ [realpathSync(project)]: false })}\n`);
		expect(settle(["--faux", "-p", "hi"])).toEqual({ code: 0, stdout: "hi\n", stderr: "" });
		rmSync(join(agentDir, "trust.json"));
		writeFileSync(join(agentDir, "settings.json"), '{ "defaultProjectTrust": "never" }\n');
		expect(settle(["--faux", "-p", "hi"])).toEqual({ code: 0, stdout: "hi\n", stderr: "" });

		// Where it still helps: a flag of the extension that was kept out is an error that says why.
		const flag = settle(["--faux", "--no-approve", "-p", "hi", "--plan"]);
		expect(flag.code).toBe(2);
		expect(flag.stderr).toMatch(/their flags are unknown: run settle with --approve to load them/);
		// And --approve still loads them.
		expect(settle(["--faux", "--approve", "-p", "hi"]).stderr).toContain("[info] plan.ts: plan.ts ran");
	});

	it("a trusted project's options are never blamed on trust", () => {
		const run = settle(["--faux", "-p", "hi", "--plan"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toBe("Error: Unknown option: --plan\nRun settle --help for the options.\n");
	});
});

describe("pi's commands that Settle lacks", () => {
	it("settle config …: pi's screen for package resources is refused (exit 2), names the settings edit instead, and sends nothing to the model", () => {
		const run = settle(["config", "--faux", "--json"]);
		const refusal = `settle config: Settle has no screen that turns package resources on and off (config is pi's). Edit the package's entry in settings.json "packages" instead: { "source": "npm:…", "extensions": [], "skills": ["!name"] } ([] loads none of a kind, ! excludes). To send "config" to the model as a prompt, put it in quotes with more words or after -p: settle -p "config …".`;
		expect(run.code).toBe(2);
		// --json's reader gets the refusal as the stream's one line (opencode#27559), and no model output.
		expect(run.stdout).toBe(`${JSON.stringify({ type: "error", message: refusal })}\n`);
		expect(run.stderr).toBe(`Error: ${refusal}\nRun settle --help for the options.\n`);
		// The way out it names works: after -p the word is a prompt.
		const prompt = settle(["--faux", "--no-session", "-p", "config"]);
		expect(prompt.code).toBe(0);
		expect(prompt.stdout).toBe("config\n");
	});

	it("an unknown option without a prompt is reported as unknown, not as a missing prompt; a real extension flag still needs one", () => {
		const typo = settle(["--faux", "--contineu"]);
		expect(typo.code).toBe(2);
		expect(typo.stderr).toBe("Error: Unknown option: --contineu\nRun settle --help for the options.\n");
		const extension = join(dir, "flags.ts");
		writeFileSync(extension, `export default function (pi: any) { pi.registerFlag("plan", { type: "boolean" }); }\n`);
		const flagOnly = settle(["--faux", "-e", extension, "--plan"]);
		expect(flagOnly.code).toBe(2);
		expect(flagOnly.stderr).toMatch(/^Error: no prompt\./);
		// With an extension that might own it, the typo is still said as unknown once the extension loaded.
		const typoBesideExtension = settle(["--faux", "-e", extension, "--contineu"]);
		expect(typoBesideExtension.code).toBe(2);
		expect(typoBesideExtension.stderr).toBe("Error: Unknown option: --contineu\nRun settle --help for the options.\n");
	});
});

describe("unknown long options before anything loads", () => {
	const POINTER = "Run settle --help for the options.\n";
	/** A global extension (agent folder) that leaves a file when it is loaded, and registers `--plan`. */
	function addLoadMarkerExtension(): string {
		const marker = join(dir, "loaded");
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		writeFileSync(
			join(agentDir, "extensions", "marker.ts"),
			`import { writeFileSync } from "node:fs";
export default function (pi: any) {
	writeFileSync(${JSON.stringify(marker)}, "");
	pi.registerFlag("plan", { type: "boolean" });
}
`,
		);
		return marker;
	}

	it("no extension can load: an unknown option is said as a short one is (with the help pointer), and nothing starts", () => {
		for (const args of [
			["--typo", "-p", "hi"],
			["--no-extensions", "--typo=1", "--other", "-p", "hi"],
		]) {
			const run = settle(["--faux", ...args]);
			expect(run.code).toBe(2);
			expect(run.stdout).toBe("");
			const names = args.filter((arg) => arg.startsWith("--") && arg !== "--no-extensions");
			const listed = names.map((arg) => arg.replace(/=.*/, "")).join(", ");
			expect(run.stderr).toBe(`Error: Unknown option${names.length > 1 ? "s" : ""}: ${listed}\n${POINTER}`);
		}
		// Nothing started: not even the agent folder was made (a run makes it for its sessions).
		expect(existsSync(agentDir)).toBe(false);
		expect(settle(["--faux", "-z", "-p", "hi"]).stderr).toBe(`Error: Unknown option: -z\n${POINTER}`);
	});

	it("with an extension to load, a name it may register waits for it: its flag works, a typo is refused", () => {
		const marker = addLoadMarkerExtension();
		// --plan is its flag, --typo is not.
		const plan = settle(["--faux", "--no-session", "--plan", "-p", "hi"]);
		expect([plan.code, plan.stdout, existsSync(marker)]).toEqual([0, "hi\n", true]);
		const typo = settle(["--faux", "--no-session", "--typo", "-p", "hi"]);
		expect(typo.code).toBe(2);
		expect(typo.stderr).toBe(`Error: Unknown option: --typo\n${POINTER}`);
	});

	it("an untrusted project's extensions folder cannot own an option: refused before anything loads, saying how to trust it; trusted, its flag works", () => {
		addPlanExtension();
		// A project settings entry is kept out by trust the same way.
		writeFileSync(join(project, ".settle", "settings.json"), JSON.stringify({ extensions: ["extensions/plan.ts"] }));
		// Before any model lookup too (a model that does not exist is not what the user hears first).
		for (const args of [["--typo"], ["--no-approve", "--plan"], ["--model", "nope/x", "--typo"]]) {
			const run = settle(["--faux", "--no-session", ...args, "-p", "hi"]);
			expect(run.code).toBe(2);
			expect(run.stderr).toBe(
				`Error: Unknown option: ${args.at(-1)}\nThe project ${project} is not trusted, so its extensions were not loaded and their flags are unknown: run settle with --approve to load them.\n${POINTER}`,
			);
		}
		// Refused before anything started: the agent folder was not even made.
		expect(existsSync(agentDir)).toBe(false);
		// Trusted (remembered in trust.json, or --approve), the extension loads and owns --plan.
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [project]: true }));
		const trusted = settle(["--faux", "--no-session", "--plan", "-p", "hi"]);
		expect([trusted.code, trusted.stdout]).toEqual([0, "hi\n"]);
		const typo = settle(["--faux", "--no-session", "--typo", "-p", "hi"]);
		expect([typo.code, typo.stderr]).toEqual([2, `Error: Unknown option: --typo\n${POINTER}`]);
	});

	it("a corrupt settings file: settle stops at it before any extension loads (the option may be its extension's), exit 1", () => {
		const marker = addLoadMarkerExtension();
		const file = join(agentDir, "settings.json");
		writeFileSync(file, "{ broken");
		for (const args of [
			["--typo", "-p", "hi"],
			["-p", "hi"],
		]) {
			const run = settle(["--faux", "--no-session", ...args]);
			expect(run.code).toBe(1);
			expect(run.stderr).toMatch(
				new RegExp(
					`^Error: Could not read global settings ${file}: invalid JSON .*; settle does not start until then\\.\\n$`,
				),
			);
			expect(existsSync(marker)).toBe(false);
		}
	});
});

describe("settle --help", () => {
	it("lists the flags of the project's extensions, as pi's help does", () => {
		addPlanExtension();
		const help = settle(["--approve", "--help"]);
		expect(help.code).toBe(0);
		expect(help.stdout).toMatch(
			/^Extension flags \(from this project's extensions\):\n {2}--plan +Plan before acting$/m,
		);
		expect(help.stderr).toBe("");
		// A model it cannot find (or no key for it) does not keep the flags out: help needs no model.
		expect(settle(["--approve", "--model", "nope/x", "--help"]).stdout).toContain(help.stdout);
		// Untrusted, they are not loaded, so not listed; the help itself is unchanged.
		const untrusted = settle(["--help"]);
		expect(untrusted.code).toBe(0);
		expect(untrusted.stdout).not.toContain("--plan ");
		expect(untrusted.stdout).toContain('settle -p "<prompt>"');
	});

	it("still prints the help when the project cannot start (a corrupt settings file), exit 0", () => {
		mkdirSync(join(project, ".settle"), { recursive: true });
		writeFileSync(join(project, ".settle", "settings.json"), "{ broken");
		const help = settle(["--help"]);
		expect(help.code).toBe(0);
		expect(help.stdout).toContain("Exit codes: 0 ok");
		expect(help.stderr).toBe("");
	});
});

describe("a session folder that cannot be made", () => {
	it("is refused before the model is asked (it would fail at the first write): what is wrong and the flags that fix it", () => {
		const file = join(dir, "a-file");
		writeFileSync(file, "not a folder\n");
		for (const args of [
			["--session-dir", join(file, "sessions")],
			["--agent-dir", file],
		]) {
			const run = settle(["--faux", ...args, "-p", "hi"]);
			expect(run.code).toBe(2);
			expect(run.stdout).toBe("");
			expect(run.stderr).toMatch(
				new RegExp(
					`^Error: Cannot keep sessions in ${file}/.*: ${file} is not a folder\\. Pass --session-dir <folder> \\(or --agent-dir <folder>\\), or --no-session to keep the session in memory\\.\\n$`,
				),
			);
		}
		// The way out it names works.
		expect(settle(["--faux", "--agent-dir", file, "--no-session", "-p", "hi"])).toMatchObject({
			code: 0,
			stdout: "hi\n",
		});
		// From settings (not the command line): a startup failure, exit 1. A project's sessionDir
		// applies only to a trusted project (test/security/untrusted-project-session-dir.test.ts).
		mkdirSync(join(project, ".settle"), { recursive: true });
		writeFileSync(join(project, ".settle", "settings.json"), JSON.stringify({ sessionDir: file }));
		const fromSettings = settle(["--approve", "--faux", "-p", "hi"]);
		expect(fromSettings.code).toBe(1);
		expect(fromSettings.stderr).toContain(`Error: Cannot keep sessions in ${file}: ${file} is not a folder.`);
	});
});

describe("--agent-dir with a ~ the shell did not expand", () => {
	it("regression: --agent-dir '~/x' (quoted) resolved to ./~/x under the project; it is the home folder's x, as SETTLE_AGENT_DIR's", () => {
		const home = join(dir, "home");
		mkdirSync(join(home, "pi-agent"), { recursive: true });
		const sessions = runSettle(["--faux", "--agent-dir", "~/pi-agent", "-p", "hi"], {
			cwd: project,
			agentDir,
			env: { HOME: home },
		});
		expect(sessions.code).toBe(0);
		expect(readdirSync(join(home, "pi-agent", "sessions"))).toHaveLength(1);
		expect(existsSync(join(project, "~"))).toBe(false);
	});
});

describe("a session folder under /proc (or /sys)", () => {
	it.skipIf(!existsSync("/proc/self"))(
		"regression: --session-dir /proc/x hung at 100% CPU (Node 20's recursive mkdirSync never returns there); now refused at once, exit 2",
		() => {
			const folder = `/proc/settle-no-such-${process.pid}/sessions`;
			// Killed after 20 s: without the check the child never exits.
			const run = runSettle(["--faux", "--session-dir", folder, "-p", "hi"], {
				cwd: project,
				agentDir,
				timeoutMs: 20_000,
			});
			expect(run.code).toBe(2);
			expect(run.stdout).toBe("");
			expect(run.stderr).toMatch(
				new RegExp(
					`^Error: Cannot keep sessions in ${folder}: ${dirname(folder)} cannot be made \\(ENOENT\\)\\. Pass --session-dir <folder>`,
				),
			);
		},
	);

	it("the check leaves no folder behind: a folder that can be made is made by the first write only", () => {
		const fresh = join(dir, "fresh");
		const refused = settle(["--faux", "--session-dir", join(fresh, "sessions"), "--model", "nope/x", "-p", "hi"]);
		expect(refused.code).toBe(2);
		expect(existsSync(fresh)).toBe(false);
		const run = settle(["--faux", "--session-dir", join(fresh, "sessions"), "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(existsSync(join(fresh, "sessions"))).toBe(true);
	});
});

describe("a real provider without a key", () => {
	it("the provider's own variable and the auth.json entry under its name are shown, and writing it gets past the key check", () => {
		const env = { GROQ_API_KEY: undefined };
		const run = runSettle(["--model", "groq/llama-3.3-70b-versatile", "-p", "hi"], { cwd: project, agentDir, env });
		expect(run.code).toBe(4);
		expect(run.stderr).toContain("No API key found for groq.");
		// groq's own variable, not a generic list (pi-ai reads GROQ_API_KEY: test/llm/provider-env.test.ts).
		expect(run.stderr).toContain("Set the provider's key in the environment (GROQ_API_KEY) or in");
		expect(run.stderr).not.toContain("OPENAI_API_KEY");
		const entry = new RegExp(`or in ${join(agentDir, "auth.json")}: (\\{.*\\})\\.\\n$`).exec(run.stderr)?.[1];
		expect(entry).toBe('{"groq":{"type":"api_key","key":"…"}}');
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "auth.json"), entry!.replace("…", "gsk-test"));
		// No network here: with the key the request is made and fails to connect (retries off to keep it short).
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false } }));
		const keyed = runSettle(["--model", "groq/llama-3.3-70b-versatile", "-p", "hi"], { cwd: project, agentDir, env });
		expect(keyed.code).toBe(1);
		expect(keyed.stderr).not.toContain("No API key found");
	});
});

describe("--faux-script mistakes", () => {
	it.each([
		[
			[{ toolcalls: [{ name: "bash" }] }],
			'step 1: unknown key "toolcalls" (a step has text, thinking, toolCalls, stopReason, errorMessage)',
		],
		[
			["ok", { toolCalls: [{ name: "bash", args: { command: "ls" } }] }],
			'step 2: tool call bash: unknown key "args" (a tool call has name, arguments, id)',
		],
		[[{ toolCalls: { name: "bash" } }], 'step 1: "toolCalls" must be an array'],
		[[{ toolCalls: [{ name: "bash", arguments: "ls" }] }], 'step 1: tool call bash: "arguments" must be an object'],
	])("%j is refused (exit 2) naming the step and the key, before anything runs", (steps, message) => {
		const file = join(dir, "script.json");
		writeFileSync(file, JSON.stringify(steps));
		const run = settle(["--faux-script", file, "-p", "go"]);
		expect(run).toEqual({ code: 2, stdout: "", stderr: `Error: Faux script ${file}, ${message}\n` });
	});
});

describe("settle --rpc without a usable model", () => {
	it("a prompt's error keeps pi's first line and says what fixes it from an RPC client (not the SDK's model runtime calls)", () => {
		const env = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_OAUTH_TOKEN: undefined, GROQ_API_KEY: undefined };
		const input = `${JSON.stringify({ id: "1", type: "prompt", message: "hi" })}\n`;
		const responses = (args: string[]) => {
			const run = runSettle(["--rpc", ...args], { cwd: project, agentDir, env, input });
			expect(run.code).toBe(0);
			return run.stdout
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line) as { id?: string; success?: boolean; error?: string });
		};
		const [noKey] = responses(["--model", "groq/llama-3.3-70b-versatile"]);
		expect(noKey).toMatchObject({ id: "1", success: false });
		expect(noKey!.error).toBe(
			`No API key found for groq. Set the provider's key in the environment of settle (GROQ_API_KEY) or in ${join(agentDir, "auth.json")}, or select another model with set_model.`,
		);
		expect(noKey!.error).not.toContain("modelRuntime");
	});
});

describe("settle -p while a request is retried", () => {
	it("each backoff is named on stderr (the chat's wording); stdout stays the answer; --json adds nothing to stderr", () => {
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 20 } }));
		const file = join(dir, "script.json");
		writeFileSync(file, JSON.stringify([{ stopReason: "error", errorMessage: "529 overloaded\nupstream busy" }, "ok"]));
		const run = settle(["--faux-script", file, "-p", "go"]);
		expect(run).toEqual({
			code: 0,
			stdout: "ok\n",
			stderr: "Retrying in 0.0 s, attempt 1/3: 529 overloaded upstream busy\n",
		});
		const json = settle(["--faux-script", file, "--json", "go"]);
		expect(json.code).toBe(0);
		expect(json.stderr).toBe("");
		expect(json.stdout).toContain('"type":"auto_retry_start"');
	});
});

describe("--tools naming a tool that does not exist", () => {
	it("warns with what the model gets and the names there are (pi drops it silently); an extension's tool counts", () => {
		const typo = settle(["--faux", "--tools", "reed,grep", "-p", "hi"]);
		expect(typo).toEqual({
			code: 0,
			stdout: "hi\n",
			stderr:
				'Warning: --tools: no tool is named "reed", so the model gets only grep. The built-in tools are read, bash, edit, write, grep, find, ls; extensions add theirs.\n',
		});
		expect(settle(["--faux", "--tools", "reed", "-p", "hi"]).stderr).toContain("so the model gets no tools.");
		const extension = join(dir, "weather.ts");
		writeFileSync(
			extension,
			`export default function (pi: any) {
	pi.registerTool({ name: "weather", label: "Weather", description: "Weather", parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "sunny" }], details: {} }) });
}
`,
		);
		expect(settle(["--faux", "-e", extension, "--tools", "weather,read", "-p", "hi"])).toEqual({
			code: 0,
			stdout: "hi\n",
			stderr: "",
		});
	});
});

describe("settle demo with arguments", () => {
	it("is a usage error naming them (was: ignored)", () => {
		expect(settle(["demo", "extra"])).toEqual({
			code: 2,
			stdout: "",
			stderr: "Error: settle demo takes no arguments, got: extra\n",
		});
	});
});
