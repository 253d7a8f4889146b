/**
 * Reports about an agent's `settings.json` and the processes writing it, replayed against real
 * `settle` processes (RPC mode, the model switches a chat's `/model` makes) and real processes
 * running Settle's `SettingsManager`, on real files in a scratch agent folder.
 *
 * cc-switch#1988: switching the model while the settings file could not be parsed reported an error,
 * yet the switch had happened; the UI said the old model until a restart. In Settle the same: a
 * `set_model` refused with "Cannot save setting" had already switched the session, and the next
 * prompt went to the model the user was told it had not switched to. Now a file that does not parse
 * refuses the switch before anything changes; a read-only one (a Nix store link) lets it complete and
 * then says the default was not saved. And in `settle -i`, a Shift+Tab level the broken file could not
 * save ended the chat with a stack trace when the line was sent, and the line was lost.
 *
 * claude-code#3123, claude-code#79403, claude-code#62486: `/model` (and other saves mid-session)
 * rewrote `settings.json` with the model key alone, or left it malformed, or stripped the keys it does
 * not manage (`statusLine`, `hooks`, `enabledPlugins`).
 *
 * claude-code#76749, claude-code#51843: with several sessions running, a key the user removed by hand
 * came back, and a whole stale copy of the settings was written back by a session that had loaded it
 * earlier.
 *
 * claude-code#91520: settings saved with an unlocked truncating write: sessions saving at once tore
 * the file ("Settings file failed to parse", every rule dropped) and dropped each other's keys.
 *
 * claude-code#31358, claude-code#42901: `--model` at launch did not override the settings file's
 * `model`: the settings' model answered.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as pi from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { cliBundle } from "../cli/cli-bundle.js";
import { ROOT, RpcClient, runSettleAsync, trackChild, useCliProject } from "../cli/helpers.js";
import { Repl, Terminal } from "../cli/interactive.helpers.js";
import { chatReply } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-pi-races-settings-writers-");
const server = useWireServer();

const settingsFile = () => join(cli.agentDir, "settings.json");

/** Two providers on the local server: `local` with `coder` and `reviewer`, `other` with `big`; all reason. */
function writeModels(): void {
	const baseUrl = `${server.url}/v1`;
	const provider = (apiKey: string, ids: string[]) => ({
		baseUrl,
		api: "openai-completions",
		apiKey,
		models: ids.map((id) => ({ id, reasoning: true })),
	});
	mkdirSync(cli.agentDir, { recursive: true });
	writeFileSync(
		join(cli.agentDir, "models.json"),
		JSON.stringify({
			providers: { local: provider("local-key", ["coder", "reviewer"]), other: provider("o", ["big"]) },
		}),
	);
}

function rpc(...args: string[]): RpcClient {
	return new RpcClient(args, { cwd: cli.project, agentDir: cli.agentDir });
}

async function state(client: RpcClient): Promise<{ model: { provider: string; id: string }; thinkingLevel: string }> {
	const response = await client.request({ id: `state-${client.lines.length}`, type: "get_state" });
	return response.data as { model: { provider: string; id: string }; thinkingLevel: string };
}

/** Runs a child as root without dac_override: it obeys file modes as a user does (root writes anything). */
const AS_A_USER = ["setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override"];

/**
 * Makes settings.json a link into a read-only folder (as a Nix store one) holding `settings`;
 * returns the folder and the file's bytes.
 */
function readOnlySettings(settings: object): { store: string; bytes: string } {
	writeModels();
	const store = join(cli.dir, "store");
	mkdirSync(store);
	const bytes = JSON.stringify(settings);
	writeFileSync(join(store, "settings.json"), bytes);
	chmodSync(join(store, "settings.json"), 0o444);
	chmodSync(store, 0o555);
	symlinkSync(join(store, "settings.json"), settingsFile());
	return { store, bytes };
}

/** settings.json after a hand edit that left a trailing comma: it does not parse. */
const BROKEN = '{\n  "defaultProvider": "local",\n  "defaultModel": "coder",\n}\n';

describe("cc-switch#1988: a model switch reported as failed had switched anyway", () => {
	it("cc-switch#1988: with settings.json broken by a hand edit mid-session, a refused set_model / set_thinking_level changes nothing: the old model answers; once fixed, the switch applies and the hand edit stays", async () => {
		writeModels();
		writeFileSync(
			settingsFile(),
			`${JSON.stringify({ defaultProvider: "local", defaultModel: "coder", defaultThinkingLevel: "low" }, null, 2)}\n`,
		);
		const client = rpc();
		expect(await state(client)).toMatchObject({ model: { provider: "local", id: "coder" }, thinkingLevel: "low" });

		// The user edits the file while the session runs and leaves a trailing comma.
		const broken =
			'{\n  "defaultProvider": "local",\n  "defaultModel": "coder",\n  "defaultThinkingLevel": "low",\n}\n';
		writeFileSync(settingsFile(), broken);
		const refused = await client.request({ id: "switch", type: "set_model", provider: "other", modelId: "big" });
		expect(refused).toMatchObject({ success: false });
		expect(refused.error).toContain(`Cannot save setting "defaultProvider": ${settingsFile()} could not be read`);
		expect(refused.error).toContain("fix or delete the file, then try again");
		const level = await client.request({ id: "level", type: "set_thinking_level", level: "high" });
		expect(level).toMatchObject({ success: false });
		expect(level.error).toContain('Cannot save setting "defaultThinkingLevel"');
		// What the session says is what it does: still coder at low, and coder answers.
		expect(await state(client)).toMatchObject({ model: { provider: "local", id: "coder" }, thinkingLevel: "low" });
		server.reply(chatReply([{ type: "text", text: "from coder" }]));
		await client.promptAndSettle("which model?");
		expect(server.requests.at(-1)?.body).toMatchObject({ model: "coder", reasoning_effort: "low" });
		expect(readFileSync(settingsFile(), "utf8")).toBe(broken);

		// Fixed by hand, with a key of the user's own: the same commands now apply and are saved.
		writeFileSync(settingsFile(), broken.replace('"low",\n}', '"low",\n  "quietStartup": true\n}'));
		expect(await client.request({ id: "again", type: "set_model", provider: "other", modelId: "big" })).toMatchObject({
			success: true,
		});
		expect(await client.request({ id: "level2", type: "set_thinking_level", level: "high" })).toMatchObject({
			success: true,
		});
		server.reply(chatReply([{ type: "text", text: "from big" }]));
		await client.promptAndSettle("and now?");
		expect(server.requests.at(-1)?.body).toMatchObject({ model: "big", reasoning_effort: "high" });
		expect(JSON.parse(readFileSync(settingsFile(), "utf8"))).toEqual({
			defaultProvider: "other",
			defaultModel: "big",
			defaultThinkingLevel: "high",
			quietStartup: true,
		});
		expect(await client.end()).toBe(0);
		expect(client.stderr).toBe("");
	});

	it.runIf(process.getuid?.() === 0)(
		"cc-switch#1988: a read-only settings.json (a link into a read-only folder, as a Nix store one) does not stop the switch: set_model and set_thinking_level succeed, a default_not_saved event says the default was not saved, and the new model answers",
		async () => {
			const { store, bytes } = readOnlySettings({
				defaultProvider: "local",
				defaultModel: "coder",
				quietStartup: true,
			});
			const client = new RpcClient(["--no-session"], { cwd: cli.project, agentDir: cli.agentDir, wrapper: AS_A_USER });
			const switched = await client.request({ id: "switch", type: "set_model", provider: "other", modelId: "big" });
			// The switch happened: a client checking `success` must not think it did not.
			expect(switched).toMatchObject({ success: true, data: { provider: "other", id: "big" } });
			const level = await client.request({ id: "level", type: "set_thinking_level", level: "high" });
			expect(level).toMatchObject({ success: true, data: { level: "high" } });
			const warnings = client.lines.filter((line) => line.type === "default_not_saved");
			expect(warnings.map((line) => String(line.message).split(": Cannot write")[0])).toEqual([
				"Switched to other/big, but it was not saved as the default model",
				"Thinking level set to high, but it was not saved as the default",
			]);
			// Each warning comes before its command's answer.
			expect(client.lines.indexOf(warnings[0]!)).toBeLessThan(client.lines.indexOf(switched));
			expect(await state(client)).toMatchObject({ model: { provider: "other", id: "big" }, thinkingLevel: "high" });
			server.reply(chatReply([{ type: "text", text: "from big" }]));
			await client.promptAndSettle("which model?");
			expect(server.requests.at(-1)?.body.model).toBe("big");
			expect(await client.end()).toBe(0);
			chmodSync(store, 0o755);
			expect(readFileSync(settingsFile(), "utf8")).toBe(bytes);
			expect(readdirSync(store)).toEqual(["settings.json"]);
		},
	);

	it.runIf(process.getuid?.() === 0)(
		"cc-switch#1988: settle -i with a read-only settings.json: /model and /thinking apply, each with a warning that the default was not saved",
		async () => {
			const { store, bytes } = readOnlySettings({ defaultProvider: "local", defaultModel: "coder" });
			const repl = new Repl(["--no-session"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				env: { NO_COLOR: "1" },
				wrapper: AS_A_USER,
			});
			await repl.idle(0);
			let from = repl.mark();
			repl.child.stdin.write("/model other/big\n");
			const switched = await repl.idle(from, "Model: other/big");
			expect(switched).toContain(
				"Warning: Switched to other/big, but it was not saved as the default model: Cannot write",
			);
			from = repl.mark();
			repl.child.stdin.write("/thinking high\n");
			const level = await repl.idle(from, "Thinking: high");
			expect(level).toContain("Warning: Thinking level set to high, but it was not saved as the default: Cannot write");
			repl.child.stdin.end();
			expect(await repl.exited).toBe(0);
			chmodSync(store, 0o755);
			expect(readFileSync(settingsFile(), "utf8")).toBe(bytes);
		},
	);

	it.runIf(process.getuid?.() === 0)(
		"cc-switch#1988: settle -p with a read-only settings.json: an extension command's pi.setModel applies, and stderr warns that the default was not saved",
		async () => {
			const { store, bytes } = readOnlySettings({ defaultProvider: "local", defaultModel: "coder" });
			const extensions = join(cli.agentDir, "extensions");
			mkdirSync(extensions, { recursive: true });
			writeFileSync(
				join(extensions, "big.ts"),
				`export default function (pi) {
	pi.registerCommand("big", {
		handler: async (_args, ctx) => {
			const switched = await pi.setModel(ctx.modelRegistry.find("other", "big"));
			ctx.ui.notify("switched: " + switched + " to " + ctx.model.id, "info");
		},
	});
}
`,
			);
			const run = await runSettleAsync(["--no-session", "-p", "/big"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				wrapper: AS_A_USER,
			});
			expect(run.stderr).toContain(
				"Warning: Switched to other/big, but it was not saved as the default model: Cannot write",
			);
			expect(`${run.stdout}${run.stderr}`).toContain("switched: true to big");
			expect(run.code).toBe(0);
			chmodSync(store, 0o755);
			expect(readFileSync(settingsFile(), "utf8")).toBe(bytes);
		},
	);

	it.runIf(process.getuid?.() === 0)(
		"cc-switch#1988: a read-only settings.json refuses the RPC settings that are nothing but a saved value (set_auto_compaction, set_steering_mode, set_follow_up_mode, set_auto_retry): each answer names the file and what to do, the session keeps what get_state says, the file its bytes",
		async () => {
			const { store, bytes } = readOnlySettings({ defaultProvider: "local", defaultModel: "coder" });
			const client = new RpcClient(["--no-session"], { cwd: cli.project, agentDir: cli.agentDir, wrapper: AS_A_USER });
			const before = await client.request({ id: "before", type: "get_state" });
			for (const command of [
				{ type: "set_auto_compaction", enabled: false },
				{ type: "set_steering_mode", mode: "all" },
				{ type: "set_follow_up_mode", mode: "all" },
				{ type: "set_auto_retry", enabled: false },
			]) {
				const refused = await client.request({ id: command.type, ...command });
				expect(refused, command.type).toMatchObject({ success: false });
				expect(refused.error).toContain(`Cannot write ${settingsFile()}: EACCES`);
				expect(refused.error).toContain("The file keeps its previous content; make its folder writable and try again.");
			}
			const after = await client.request({ id: "after", type: "get_state" });
			expect(after.data).toMatchObject({
				autoCompactionEnabled: true,
				steeringMode: "one-at-a-time",
				followUpMode: "one-at-a-time",
			});
			expect(after.data).toEqual(before.data);
			expect(await client.end()).toBe(0);
			// Said once, in the answer: nothing else on stderr.
			expect(client.stderr).toBe("");
			chmodSync(store, 0o755);
			expect(readFileSync(settingsFile(), "utf8")).toBe(bytes);
		},
	);

	it("cc-switch#1988: settle -i: Shift+Tab picks a level the broken settings.json cannot save; the line is still sent and answered at the level in use, with a warning saying why", async () => {
		writeModels();
		writeFileSync(settingsFile(), JSON.stringify({ defaultProvider: "local", defaultModel: "coder" }));
		const term = new Terminal(["--no-session", "--thinking", "off"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
			env: { NO_COLOR: "1" },
		});
		await term.until("> ", 0);
		writeFileSync(settingsFile(), BROKEN);
		server.reply(chatReply([{ type: "text", text: "answered at off" }]));
		const from = term.mark();
		term.type("\x1b[Zhello\r");
		await term.until("answered at off", from);
		expect(term.output.slice(from)).toContain('Warning: Cannot save setting "defaultThinkingLevel"');
		expect(server.requests.at(-1)?.body.reasoning_effort).toBeUndefined();
		term.type("\x04");
		expect(await term.exited).toBe(0);
		expect(readFileSync(settingsFile(), "utf8")).toBe(BROKEN);
	});

	it("cc-switch#1988 (pi-peer): pi 0.73.1 neither throws nor saves: the default stays the old model, the file its bytes, and the failure waits in drainErrors()", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(settingsFile(), JSON.stringify({ defaultProvider: "local", defaultModel: "coder" }));
		const settings = pi.SettingsManager.create(cli.project, cli.agentDir);
		writeFileSync(settingsFile(), BROKEN);
		settings.setDefaultModelAndProvider("other", "big");
		await settings.flush();
		expect(readFileSync(settingsFile(), "utf8")).toBe(BROKEN);
		expect(settings.drainErrors().map((problem) => problem.scope)).toEqual(["global"]);
	});
});

/** Keys Settle does not know (another tool's, or a newer pi's): a save must keep them as they are. */
const FOREIGN_KEYS = {
	statusLine: { type: "command", command: "~/.claude/statusline.sh" },
	hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "audit.sh" }] }] },
	enabledPlugins: { "review@marketplace": true },
	permissions: { allow: ["Bash(git status:*)"], deny: [] },
	env: { SOME_VAR: "original_value" },
};

describe("claude-code#3123, claude-code#79403, claude-code#62486: /model rewrote settings.json with the model alone, malformed, or without the keys it does not manage", () => {
	it("claude-code#3123: ten model switches over RPC: after each, settings.json parses and holds every other key as it was, the unknown ones included", async () => {
		writeModels();
		const userSettings = { ...FOREIGN_KEYS, defaultProvider: "local", defaultModel: "coder", hideThinkingBlock: true };
		writeFileSync(settingsFile(), JSON.stringify(userSettings, null, "\t"));
		const client = rpc("--no-session");
		const targets = [
			["other", "big"],
			["local", "reviewer"],
		] as const;
		for (let i = 0; i < 10; i++) {
			const [provider, modelId] = targets[i % 2]!;
			expect(await client.request({ id: `m${i}`, type: "set_model", provider, modelId })).toMatchObject({
				success: true,
			});
			expect(JSON.parse(readFileSync(settingsFile(), "utf8"))).toEqual({
				...userSettings,
				defaultProvider: provider,
				defaultModel: modelId,
			});
		}
		expect(await client.end()).toBe(0);
	});
});

describe("claude-code#76749, claude-code#51843: a removed key came back, a stale copy of the settings was written back", () => {
	it("claude-code#76749: three running sessions; the user removes a key and adds one by hand; one session switches the model; none of them writes the removed key back, on the switch or on exit", async () => {
		writeModels();
		writeFileSync(
			settingsFile(),
			JSON.stringify({ ...FOREIGN_KEYS, defaultProvider: "local", defaultModel: "coder", hideThinkingBlock: true }),
		);
		const sessions = [rpc("--no-session"), rpc("--no-session"), rpc("--no-session")];
		// Every session has loaded the settings before the edit.
		for (const session of sessions) expect((await state(session)).model.id).toBe("coder");

		const {
			env: _removed,
			hideThinkingBlock: _alsoRemoved,
			...kept
		} = {
			...FOREIGN_KEYS,
			defaultProvider: "local",
			defaultModel: "coder",
			hideThinkingBlock: true,
		};
		writeFileSync(settingsFile(), JSON.stringify({ ...kept, quietStartup: true }, null, 2));
		expect(
			await sessions[1]!.request({ id: "switch", type: "set_model", provider: "other", modelId: "big" }),
		).toMatchObject({ success: true });
		const afterSwitch = readFileSync(settingsFile(), "utf8");
		expect(JSON.parse(afterSwitch)).toEqual({
			...kept,
			quietStartup: true,
			defaultProvider: "other",
			defaultModel: "big",
		});
		for (const session of sessions) expect(await session.end()).toBe(0);
		// Ending writes nothing: the file is byte for byte what the switch left.
		expect(readFileSync(settingsFile(), "utf8")).toBe(afterSwitch);
	});
});

/**
 * A child process running Settle's `SettingsManager` (the published bundle, or the sources with
 * `SETTLE_TEST_CLI=sources`) on the scratch folders: `body` is the script after `settings` is made;
 * `SettingsManager` is in scope.
 */
function settingsProcess(name: string, body: string): Promise<number | null> {
	const fromSources = process.env.SETTLE_TEST_CLI === "sources";
	const script = join(cli.dir, `${name}.${fromSources ? "ts" : "mjs"}`);
	const settle = fromSources ? join(ROOT, "src/settings/settings-manager.ts") : join(dirname(cliBundle()), "index.js");
	writeFileSync(
		script,
		`import { existsSync, writeFileSync } from "node:fs";
import { SettingsManager } from ${JSON.stringify(pathToFileURL(settle).href)};
const project = ${JSON.stringify(cli.project)};
const agentDir = ${JSON.stringify(cli.agentDir)};
const settings = SettingsManager.create(project, agentDir);
${body}
`,
	);
	const loader = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
	const child = spawn(process.execPath, fromSources ? ["--import", loader, script] : [script], {
		stdio: ["ignore", "ignore", "inherit"],
	});
	return trackChild(child);
}

describe("claude-code#91520: sessions saving settings at once tore settings.json and dropped each other's keys", () => {
	it("claude-code#91520: three processes saving 60 times each while a fourth reads: every read parses and pairs a provider with its own model; every writer's last value is kept", async () => {
		writeModels();
		writeFileSync(settingsFile(), JSON.stringify({ ...FOREIGN_KEYS, defaultProvider: "local", defaultModel: "coder" }));
		const done = join(cli.dir, "writers-done");
		const reads = join(cli.dir, "reads.json");
		const reader = settingsProcess(
			"reader",
			`const seen = { reads: 0, errors: [], pairs: {} };
while (!existsSync(${JSON.stringify(done)})) {
	const read = SettingsManager.create(project, agentDir);
	seen.reads++;
	for (const problem of read.getErrors()) seen.errors.push(problem.message);
	const pair = read.getDefaultProvider() + "/" + read.getDefaultModel();
	seen.pairs[pair] = (seen.pairs[pair] ?? 0) + 1;
}
writeFileSync(${JSON.stringify(reads)}, JSON.stringify(seen));`,
		);
		const writers = [
			settingsProcess(
				"models",
				`for (let i = 0; i < 60; i++) {
	if (i % 2 === 0) settings.setDefaultModelAndProvider("other", "big");
	else settings.setDefaultModelAndProvider("local", "coder");
}`,
			),
			settingsProcess(
				"levels",
				`for (let i = 0; i < 60; i++) settings.setDefaultThinkingLevel(i % 2 === 0 ? "low" : "high");`,
			),
			settingsProcess("hide", `for (let i = 0; i < 60; i++) settings.setHideThinkingBlock(i % 2 === 0);`),
		];
		expect(await Promise.all(writers)).toEqual([0, 0, 0]);
		writeFileSync(done, "");
		expect(await reader).toBe(0);
		const seen = JSON.parse(readFileSync(reads, "utf8")) as {
			reads: number;
			errors: string[];
			pairs: Record<string, number>;
		};
		expect(seen.errors).toEqual([]);
		expect(seen.reads).toBeGreaterThan(0);
		expect(Object.keys(seen.pairs).filter((pair) => pair !== "local/coder" && pair !== "other/big")).toEqual([]);
		expect(JSON.parse(readFileSync(settingsFile(), "utf8"))).toEqual({
			...FOREIGN_KEYS,
			defaultProvider: "local",
			defaultModel: "coder",
			defaultThinkingLevel: "high",
			hideThinkingBlock: false,
		});
		expect(existsSync(`${settingsFile()}.lock`)).toBe(false);
	});
});

describe("claude-code#31358, claude-code#42901: --model at launch did not override the settings file's model", () => {
	it("claude-code#31358: settle -p --model local/reviewer over a defaultModel of coder: reviewer answers, and settings.json keeps its bytes", async () => {
		writeModels();
		const bytes = `${JSON.stringify({ ...FOREIGN_KEYS, defaultProvider: "local", defaultModel: "coder" }, null, 2)}\n`;
		writeFileSync(settingsFile(), bytes);
		server.reply(
			chatReply([{ type: "text", text: "reviewer here" }]),
			chatReply([{ type: "text", text: "coder here" }]),
		);
		const at = { cwd: cli.project, agentDir: cli.agentDir };
		const flagged = await runSettleAsync(["--no-session", "--model", "local/reviewer", "-p", "who?"], at);
		expect(flagged).toEqual({ code: 0, stdout: "reviewer here\n", stderr: "" });
		expect(server.requests.at(-1)?.body.model).toBe("reviewer");
		// The flag was for that run: the next run without it is on the settings' model again.
		const plain = await runSettleAsync(["--no-session", "-p", "who?"], at);
		expect(plain).toEqual({ code: 0, stdout: "coder here\n", stderr: "" });
		expect(server.requests.at(-1)?.body.model).toBe("coder");
		expect(readFileSync(settingsFile(), "utf8")).toBe(bytes);
	});
});

describe("a blank settings.json (`> settings.json`, an editor that truncated it mid-save)", () => {
	it.each([
		["0 bytes", ""],
		["whitespace only", "  \n\n"],
	])(
		"settle --rpc with a settings.json of %s starts, and the saves after it keep each other's keys",
		async (_name, blank) => {
			writeModels();
			writeFileSync(settingsFile(), blank);
			const client = rpc("--model", "local/coder", "--no-session");
			expect(await state(client)).toMatchObject({ model: { provider: "local", id: "coder" } });
			expect(
				await client.request({ id: "switch", type: "set_model", provider: "other", modelId: "big" }),
			).toMatchObject({ success: true });
			expect(await client.request({ id: "level", type: "set_thinking_level", level: "high" })).toMatchObject({
				success: true,
				data: { level: "high" },
			});
			expect(await client.end()).toBe(0);
			expect(client.stderr).toBe("");
			expect(JSON.parse(readFileSync(settingsFile(), "utf8"))).toEqual({
				defaultProvider: "other",
				defaultModel: "big",
				defaultThinkingLevel: "high",
			});
		},
	);

	it("(pi-peer) pi 0.73.1 reads a 0-byte file as empty, but a whitespace-only one is a parse error it never saves over", async () => {
		mkdirSync(cli.agentDir, { recursive: true });
		writeFileSync(settingsFile(), "  \n\n");
		const settings = pi.SettingsManager.create(cli.project, cli.agentDir);
		expect(settings.drainErrors().map((problem) => problem.scope)).toEqual(["global"]);
		settings.setDefaultModelAndProvider("other", "big");
		await settings.flush();
		expect(readFileSync(settingsFile(), "utf8")).toBe("  \n\n");
	});
});
