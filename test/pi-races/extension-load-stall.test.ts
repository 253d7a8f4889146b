/**
 * Fusion#3579: start-up sat on "Loading extensions…" for 6 min 40 s, nothing in the log: an
 * extension's load awaited a handshake that never came. pi waits for every factory as long as it
 * takes, and so does Settle; what the user should get is the name of the extension it waits for
 * when they stop it (Ctrl+C, a supervisor's SIGTERM), or when nothing is left that could finish it.
 * Replayed with real `settle -p` child processes and extensions that wait on a socket they opened.
 * The same stall during a `/reload` (the chat's, or an extension command's `ctx.reload()`) is named
 * the same way, in `settle -i` and `settle -p`.
 *
 * gentle-pi#1007: gentle-shell's `session_start` handler awaited a tracker that never started;
 * `session_start` handlers run one after another, so every extension loaded after it (the skill
 * registry, the startup banner…) never started, and nothing said why. Settle waits for the handler
 * as pi does; what the user should get when they stop it is the handler it was waiting for, and
 * that the extensions after it have not started. `settle -i` printed "Ctrl+C again to exit" and
 * then ignored the second Ctrl+C: quitting waited for the handler.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SHUTDOWN_GRACE_MS } from "../../src/cli/termination.js";
import { signalSettleWhen, useCliProject } from "../cli/helpers.js";
import { fileAppears, GATED_COMMAND, Repl } from "../cli/interactive.helpers.js";

const cli = useCliProject("settle-pi-races-ext-load-stall-");

/** Waits for a handshake from a server that accepts and never answers; says so on stderr first. */
const HANDSHAKE = `import { connect, createServer } from "node:net";
async function handshake(): Promise<void> {
	const server = createServer(() => {});
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", () => listening()));
	console.error("connecting to the bridge");
	await new Promise((answered) => connect((server.address() as { port: number }).port, "127.0.0.1").on("data", answered));
}
`;

/** `settle <args>` sent Ctrl+C (SIGINT) once its stderr says it is connecting to the bridge. */
function interruptWhileConnecting(args: string[]) {
	return signalSettleWhen(args, {
		cwd: cli.project,
		agentDir: cli.agentDir,
		stream: "stderr",
		text: "connecting to the bridge",
		signal: "SIGINT",
		guardMs: 60_000,
	});
}

const WHAT_TO_DO =
	"Make its module and factory finish (resolve or reject), or start without that extension (without its -e, or with --no-extensions).";

/** An extension whose factory, on a reload (a `reloading` file in the cwd), waits for a `go` file. */
const RELOAD_WAITS_FOR_GO = `import { existsSync } from "node:fs";
export default async function (pi: any) {
	if (!existsSync("reloading")) return;
	console.error("waiting for go");
	await new Promise<void>((go) => { const poll = setInterval(() => existsSync("go") && (clearInterval(poll), go()), 10); });
}
`;

/** Resolves once `chat`'s stderr holds `text`. */
function saidOnStderr(chat: Repl, text: string): Promise<void> {
	return new Promise<void>((said) => {
		const check = () => (chat.stderr.includes(text) ? said() : undefined);
		chat.child.stderr.on("data", check);
		check();
	});
}

/** Sends `/reload` to a chat with {@link RELOAD_WAITS_FOR_GO} and resolves, with the mark before it, once it waits. */
async function reloadWaitingForGo(chat: Repl): Promise<number> {
	writeFileSync(join(cli.project, "reloading"), "");
	const from = chat.mark();
	chat.send("/reload");
	await saidOnStderr(chat, "waiting for go");
	return from;
}

describe("Fusion#3579: start-up waits on an extension that never finishes loading", () => {
	for (const [phase, body, said] of [
		["factory", "export default async function (pi: any) {\n\tawait handshake();\n}\n", "its factory has not returned"],
		["module", "await handshake();\nexport default function (pi: any) {}\n", "its module is still being imported"],
	] as const) {
		it(`Fusion#3579: Ctrl+C while an extension's ${phase} waits on a handshake: settle -p names the extension and what to do, exit 130`, async () => {
			const good = join(cli.dir, "good.ts");
			writeFileSync(good, "export default function (pi: any) {}\n");
			const bridge = join(cli.dir, `bridge-${phase}.ts`);
			writeFileSync(bridge, HANDSHAKE + body);
			const run = await interruptWhileConnecting(["--faux", "--no-session", "-e", good, "-e", bridge, "-p", "hi"]);
			expect(run).toMatchObject({ code: 130, stdout: "" });
			expect(run.stderr).toBe(
				`connecting to the bridge\nsettle: stopped while waiting for an extension to load:\n  ${bridge} (${said})\n${WHAT_TO_DO}\n`,
			);
		});
	}

	it("Fusion#3579: a factory awaiting a promise nothing can settle: settle -p names the extension instead of the bare stall, exit 1", () => {
		const stuck = join(cli.dir, "stuck.ts");
		writeFileSync(stuck, "export default async function (pi: any) {\n\tawait new Promise(() => {});\n}\n");
		const run = cli.settle(["--faux", "--no-session", "-e", stuck, "-p", "hi"]);
		expect(run).toMatchObject({ code: 1, stdout: "" });
		expect(run.stderr).toBe(
			`settle: the run cannot go on: it waits for a promise that never settles, in\n  ${stuck} (its factory has not returned)\n${WHAT_TO_DO.slice(0, -1)}; settle exits.\n`,
		);
	});
});

/** gentle-shell's start: its `session_start` awaits a tracker that never answers. */
const GENTLE_SHELL = `${HANDSHAKE}export default function (pi: any) {\n\tpi.on("session_start", async () => {\n\t\tawait handshake();\n\t});\n}\n`;

/** What settle says when stopped while `shell`'s `session_start` handler still runs. */
const stoppedWhileStarting = (shell: string) =>
	`settle: stopped while the extensions were starting, waiting for:\n  the session_start handler of ${shell}\nThe extensions after it have not started. Make the handler resolve (or reject), or start without that extension (without its -e, or with --no-extensions).\n`;

/** `settle -i` with `shell` loaded, once its `session_start` handler has started waiting on the bridge. */
async function chatConnecting(shell: string): Promise<Repl> {
	const chat = new Repl(["--faux", "--no-session", "-e", shell], { cwd: cli.project, agentDir: cli.agentDir });
	await saidOnStderr(chat, "connecting to the bridge");
	return chat;
}

describe("gentle-pi#1007: a session_start handler that never settles holds every later extension's start", () => {
	it("gentle-pi#1007: settle -i before its first prompt, Ctrl+C twice while gentle-shell's session_start awaits its tracker: the chat exits 130 naming that handler (it used to stay, deaf to Ctrl+C)", async () => {
		const shell = join(cli.dir, "gentle-shell-chat.ts");
		writeFileSync(shell, GENTLE_SHELL);
		const chat = await chatConnecting(shell);
		chat.child.kill("SIGINT");
		await chat.until("(Ctrl+C again to exit, or Ctrl+D)");
		chat.child.kill("SIGINT");
		expect(await chat.exited).toBe(130);
		expect(chat.stderr).toBe(`connecting to the bridge\n${stoppedWhileStarting(shell)}`);
	});

	it("gentle-pi#1007: settle -i, input ending (Ctrl+D) while gentle-shell's session_start awaits its tracker: the chat exits 0 naming that handler, as Ctrl+C twice does (it used to wait for it)", async () => {
		const shell = join(cli.dir, "gentle-shell-eof.ts");
		writeFileSync(shell, GENTLE_SHELL);
		const chat = await chatConnecting(shell);
		expect(await chat.end()).toBe(0);
		expect(chat.stderr).toBe(`connecting to the bridge\n${stoppedWhileStarting(shell)}`);
	});

	for (const [signal, code] of [
		["SIGTERM", 143],
		["SIGHUP", 129],
	] as const) {
		it(`gentle-pi#1007: settle -i, ${signal} while gentle-shell's session_start awaits its tracker: the chat exits ${code} naming that handler, as Ctrl+C twice does (it named nothing)`, async () => {
			const shell = join(cli.dir, `gentle-shell-${signal}.ts`);
			writeFileSync(shell, GENTLE_SHELL);
			const chat = await chatConnecting(shell);
			chat.child.kill(signal);
			expect(await chat.exited).toBe(code);
			expect(chat.stderr).toBe(`connecting to the bridge\n${stoppedWhileStarting(shell)}`);
		});
	}

	it("gentle-pi#1007: Ctrl+C while gentle-shell's session_start awaits its tracker: settle -p names that handler, says the later extensions have not started, exit 130", async () => {
		const shell = join(cli.dir, "gentle-shell.ts");
		writeFileSync(shell, GENTLE_SHELL);
		const banner = join(cli.dir, "startup-banner.ts");
		writeFileSync(
			banner,
			'export default function (pi: any) {\n\tpi.on("session_start", () => console.error("banner"));\n}\n',
		);
		const run = await interruptWhileConnecting(["--faux", "--no-session", "-e", shell, "-e", banner, "-p", "hi"]);
		expect(run).toMatchObject({ code: 130, stdout: "" });
		expect(run.stderr).toBe(`connecting to the bridge\n${stoppedWhileStarting(shell)}`);
	});
});

describe("Fusion#3579 during /reload: the reload waits on an extension that never finishes loading", () => {
	it("Fusion#3579: settle -i, Ctrl+C while /reload waits on an extension's factory: the chat names it and what to do; Ctrl+C again exits 130 naming it", async () => {
		const bridge = join(cli.dir, "bridge-reload.ts");
		writeFileSync(
			bridge,
			`${HANDSHAKE}import { existsSync } from "node:fs";\nexport default async function (pi: any) {\n\tif (existsSync("reloading")) await handshake();\n}\n`,
		);
		const chat = new Repl(["--faux", "--no-session", "-e", bridge], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		writeFileSync(join(cli.project, "reloading"), "");
		const from = chat.mark();
		chat.send("/reload");
		await chat.until("Reloading extensions", from);
		await saidOnStderr(chat, "connecting to the bridge");
		chat.child.kill("SIGINT");
		await chat.until(
			`Still not stopped 2 s after the abort; waiting for:\n  ${bridge} (its factory has not returned)\nAn extension's load is waited for as long as it takes; make its module and factory finish, or start without it. Press Ctrl+C again to end settle.\n`,
			from,
		);
		chat.child.kill("SIGINT");
		expect(await chat.exited).toBe(130);
		expect(chat.stderr).toBe(
			`connecting to the bridge\nsettle: still waiting after 2 s for:\n  ${bridge} (its factory has not returned)\nExiting without waiting. ${WHAT_TO_DO}\n`,
		);
	});

	it("Fusion#3579: settle -i, once the load the notice named finishes, the reload ends and a later Ctrl+C cancels a shell command as usual instead of ending settle", async () => {
		const slow = join(cli.dir, "slow-reload.ts");
		writeFileSync(slow, RELOAD_WAITS_FOR_GO);
		const chat = new Repl(["--faux", "--no-session", "-e", slow], { cwd: cli.project, agentDir: cli.agentDir });
		await chat.idle(0);
		const from = await reloadWaitingForGo(chat);
		chat.child.kill("SIGINT");
		await chat.until(`waiting for:\n  ${slow} (its factory has not returned)\n`, from);
		writeFileSync(join(cli.project, "go"), "");
		await chat.idle(from, "Reloaded: 1 extension");

		const shell = chat.mark();
		chat.send(`!${GATED_COMMAND}`);
		await fileAppears(cli.project, "started");
		chat.child.kill("SIGINT");
		await chat.idle(shell, "(cancelled)");
		expect(await chat.end()).toBe(0);
	});

	it("regression: Ctrl+C during a /reload whose load then finishes within 2 s: a tool started next is not reported stalled, and the next Ctrl+C aborts it instead of ending settle", async () => {
		const slow = join(cli.dir, "slow-reload-quick.ts");
		writeFileSync(slow, RELOAD_WAITS_FOR_GO);
		const steps = join(cli.dir, "gated-tool.json");
		writeFileSync(
			steps,
			JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command: GATED_COMMAND } }] }, "job done"]),
		);
		const chat = new Repl(["--faux-script", steps, "--no-session", "-e", slow], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		await chat.idle(0);
		const from = await reloadWaitingForGo(chat);
		const interrupted = Date.now();
		chat.child.kill("SIGINT");
		writeFileSync(join(cli.project, "go"), "");
		await chat.idle(from, "Reloaded: 1 extension");
		const run = chat.mark();
		chat.send("start the job");
		await fileAppears(cli.project, "started");
		// Past the moment the first Ctrl+C's stall notice was due: that abort has long finished.
		await new Promise((resolve) =>
			setTimeout(resolve, Math.max(0, interrupted + SHUTDOWN_GRACE_MS + 500 - Date.now())),
		);
		expect(chat.stdout.slice(from)).not.toContain("Still not stopped");
		chat.child.kill("SIGINT");
		await chat.idle(run, "Aborted.");
		expect(await chat.end()).toBe(0);
	});

	it("Fusion#3579: settle -p, a command's ctx.reload() waiting on a module whose top-level await nothing can settle: the stall names the module and the command, exit 1", () => {
		const stuck = join(cli.dir, "stuck-reload.ts");
		writeFileSync(
			stuck,
			`import { existsSync, writeFileSync } from "node:fs";
if (existsSync("reloading")) await new Promise(() => {});
export default function (pi: any) {
	pi.registerCommand("fresh", { handler: async (_args: string, ctx: any) => {
		writeFileSync("reloading", "");
		await ctx.reload();
	} });
}
`,
		);
		const run = cli.settle(["--faux", "--no-session", "-e", stuck, "-p", "/fresh"]);
		expect(run).toMatchObject({ code: 1, stdout: "" });
		expect(run.stderr).toBe(
			`settle: the run cannot go on: it waits for a promise that never settles, in\n  the /fresh command of ${stuck}\n  ${stuck} (its module is still being imported)\nMake the handler resolve (or reject) and watch ctx.signal; make a tool return (or throw) once its abort signal fires. ${WHAT_TO_DO.slice(0, -1)}; settle exits.\n`,
		);
	});
});
