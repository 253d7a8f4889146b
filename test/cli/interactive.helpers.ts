/**
 * A running `settle -i` (a real child process, stdin a pipe): type lines, wait for output; and
 * `settle` in a pseudo-terminal ({@link Terminal}).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync, watch } from "node:fs";
import { join } from "node:path";
import { cliCommand, trackChild } from "./helpers.js";

/** The prompt the chat writes when it waits for a line. */
export const PROMPT = "> ";

export class Repl {
	readonly child: ChildProcessWithoutNullStreams;
	stdout = "";
	stderr = "";
	/** The exit code, once the process has ended and its output was read to the end. */
	readonly exited: Promise<number | null>;
	private readonly waiters: { check: () => boolean; resolve: () => void }[] = [];

	/** `wrapper` runs node under another program (e.g. `setpriv …` dropping root's override of file modes). */
	constructor(
		args: string[],
		options: { cwd: string; agentDir: string; env?: Record<string, string | undefined>; wrapper?: string[] },
	) {
		const [program, ...rest] = [...(options.wrapper ?? []), process.execPath, ...cliCommand(), "-i", ...args] as [
			string,
			...string[],
		];
		this.child = spawn(program, rest, {
			cwd: options.cwd,
			env: { ...process.env, ...options.env, SETTLE_AGENT_DIR: options.agentDir },
		});
		// Decoded as a stream: a chunk may end inside a multi-byte character (•, ├, ✓ in the output).
		this.child.stdout.setEncoding("utf8");
		this.child.stderr.setEncoding("utf8");
		this.child.stdout.on("data", (chunk) => {
			this.stdout += String(chunk);
			this.check();
		});
		this.child.stderr.on("data", (chunk) => {
			this.stderr += String(chunk);
		});
		this.exited = trackChild(this.child);
		void this.exited.then(() => this.check());
	}

	/** The output's length now: a start for {@link until} and {@link idle}. */
	mark(): number {
		return this.stdout.length;
	}

	/** Resolves with the output from `from` once it contains `text` (rejects if the process ends first). */
	until(text: string, from = 0): Promise<string> {
		return this.waitFor(() => this.stdout.indexOf(text, from) !== -1, `"${text}"`).then(() => this.stdout.slice(from));
	}

	/**
	 * Resolves with the output from `from` once the chat waits for a line again: the output since
	 * `from` contains `text` (if given) and ends with the prompt.
	 */
	idle(from: number, text = ""): Promise<string> {
		return this.waitFor(
			() => {
				const since = this.stdout.slice(from);
				return since.length > 0 && since.endsWith(`\n${PROMPT}`) && since.includes(text);
			},
			`the prompt${text ? ` after "${text}"` : ""}`,
		).then(() => this.stdout.slice(from));
	}

	/** Types a line. */
	send(line: string): void {
		this.child.stdin.write(`${line}\n`);
	}

	/** Types `line` at the prompt and resolves with the output until the next prompt. */
	async say(line: string, text = ""): Promise<string> {
		const from = this.mark();
		this.send(line);
		return this.idle(from, text);
	}

	/** Ends stdin (Ctrl+D) and resolves with the exit code. */
	end(): Promise<number | null> {
		this.child.stdin.end();
		return this.exited;
	}

	private waitFor(check: () => boolean, what: string): Promise<void> {
		if (check()) return Promise.resolve();
		return new Promise((resolve, reject) => {
			const waiter = { check, resolve };
			this.waiters.push(waiter);
			void this.exited.then((code) => {
				if (!this.waiters.includes(waiter)) return;
				this.waiters.splice(this.waiters.indexOf(waiter), 1);
				if (check()) resolve();
				else
					reject(
						new Error(`settle exited (${code}) before ${what}.\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`),
					);
			});
		});
	}

	private check(): void {
		for (const waiter of [...this.waiters]) {
			if (!waiter.check()) continue;
			this.waiters.splice(this.waiters.indexOf(waiter), 1);
			waiter.resolve();
		}
	}
}

/** The session file the banner names. */
export function bannerSessionFile(stdout: string): string {
	const match = /^ {2}session: (\S+\.jsonl)/m.exec(stdout);
	if (!match) throw new Error(`no session file in the banner:\n${stdout}`);
	return match[1]!;
}

/** The entries of a session file (after its header). */
export function readEntries(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim())
		.map((line) => JSON.parse(line) as Record<string, unknown>)
		.slice(1);
}

/** Role and text of each message entry but the system prompt's, `role: text` (tool calls as `→name`). */
export function transcript(file: string): string[] {
	return readEntries(file)
		.filter((entry) => entry.type === "message" && (entry.message as { role: string }).role !== "system")
		.map((entry) => {
			const message = entry.message as { role: string; content: unknown; stopReason?: string };
			const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
			const parts = (content as { type: string; text?: string; name?: string }[]).map((part) =>
				part.type === "toolCall" ? `→${part.name}` : (part.text ?? ""),
			);
			const stop = message.stopReason && message.stopReason !== "stop" ? ` [${message.stopReason}]` : "";
			return `${message.role}: ${parts.join(" ")}${stop}`;
		});
}

/** An entry of a session file, as the tree commands read it. */
export type TreeEntry = Record<string, unknown> & { id: string; type: string; parentId: string | null };

/** The message entry of `file` whose message has `role` and text `text` (throws if there is none). */
export function messageEntry(file: string, role: string, text: string): TreeEntry {
	const found = (readEntries(file) as TreeEntry[]).find((entry) => {
		const message = entry.message as { role: string; content: unknown } | undefined;
		if (entry.type !== "message" || message?.role !== role) return false;
		const content = message.content;
		const body =
			typeof content === "string" ? content : (content as { text?: string }[]).map((part) => part.text ?? "").join("");
		return body === text;
	});
	if (!found) throw new Error(`no ${role} message "${text}" in ${file}`);
	return found;
}

/** The question `settle -r` and `/resume` ask under their list of sessions. */
export const RESUME_QUESTION =
	"Resume which session? (number or id prefix, all for every project's, empty for a new session): ";

/** The question `/tree <id>` asks before leaving a branch. */
export const TREE_QUESTION = "Choose 1-3 (empty to cancel): ";

/**
 * Types `/tree <id>`, answers the summary question with `choice` ("1": no summary) and, given
 * `extra`, its follow-up question; resolves with the output until the next prompt.
 */
export async function navigateTree(
	chat: Repl,
	id: string,
	choice = "1",
	extra?: { question: string; answer: string },
): Promise<string> {
	const from = chat.mark();
	chat.send(`/tree ${id}`);
	await chat.until(TREE_QUESTION, from);
	if (!extra) {
		await chat.say(choice);
		return chat.stdout.slice(from);
	}
	const at = chat.mark();
	chat.send(choice);
	await chat.until(extra.question, at);
	await chat.say(extra.answer);
	return chat.stdout.slice(from);
}

/** Resolves once `dir/name` exists (fs.watch, no polling). */
export function fileAppears(dir: string, name: string): Promise<void> {
	return new Promise((resolve) => {
		const watcher = watch(dir, () => {
			if (existsSync(join(dir, name))) {
				watcher.close();
				resolve();
			}
		});
		if (existsSync(join(dir, name))) {
			watcher.close();
			resolve();
		}
	});
}

/** A bash command that says it started (a file), then waits until the test creates `gate`. */
export const GATED_COMMAND = "touch started; while [ ! -e gate ]; do sleep 0.01; done; echo opened";

export const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * `settle <args>` in a pseudo-terminal made by util-linux `script` (Debian bsdutils, always
 * installed); its output as the terminal shows it. Keys are the bytes a terminal sends (Enter "\r",
 * Ctrl+C "\x03", Ctrl+D "\x04").
 */
export class Terminal {
	readonly child: ChildProcessWithoutNullStreams;
	output = "";
	readonly exited: Promise<number | null>;
	private readonly waiters: { text: string; from: number; resolve: () => void }[] = [];

	/** `wrapper` runs settle under another program in the same terminal (a shell script reading the terminal's modes after settle). */
	constructor(
		args: string[],
		options: { cwd: string; agentDir: string; env?: Record<string, string | undefined>; wrapper?: string[] },
	) {
		const command = [...(options.wrapper ?? []), process.execPath, ...cliCommand(), ...args].map(quote).join(" ");
		// -e: script exits with settle's exit code; -f: output as it comes; -q: no "Script started" lines.
		this.child = spawn("script", ["-qfec", command, "/dev/null"], {
			cwd: options.cwd,
			// NO_COLOR from the environment the tests run in would turn the color check off.
			env: { ...process.env, TERM: "xterm", NO_COLOR: undefined, ...options.env, SETTLE_AGENT_DIR: options.agentDir },
		});
		// Decoded as a stream: a chunk may end inside a multi-byte character (✓ in the output).
		this.child.stdout.setEncoding("utf8");
		this.child.stdout.on("data", (chunk) => {
			this.output += String(chunk);
			for (const waiter of [...this.waiters]) {
				if (this.output.indexOf(waiter.text, waiter.from) === -1) continue;
				this.waiters.splice(this.waiters.indexOf(waiter), 1);
				waiter.resolve();
			}
		});
		this.exited = trackChild(this.child);
	}

	mark(): number {
		return this.output.length;
	}

	/** Resolves once the output from `from` contains `text`. */
	until(text: string, from: number): Promise<void> {
		if (this.output.indexOf(text, from) !== -1) return Promise.resolve();
		return new Promise((resolve, reject) => {
			this.waiters.push({ text, from, resolve });
			void this.exited.then((code) => {
				if (this.output.indexOf(text, from) === -1) {
					reject(new Error(`exited (${code}) before ${JSON.stringify(text)}; output:\n${JSON.stringify(this.output)}`));
				}
			});
		});
	}

	/** Types keys (bytes as a terminal sends them). */
	type(keys: string): void {
		this.child.stdin.write(keys);
	}
}

/**
 * An extension that writes each `session_shutdown` to `shutdown.log`, its process's pid to `pid`,
 * and, as the process exits, its exit code to `exit-code` (renamed into place: whole when seen).
 * The terminal is gone, so this is where the test reads how settle ended.
 */
export const exitWitness = (
	dir: string,
): string => `import { appendFileSync, renameSync, writeFileSync } from "node:fs";
export default function (pi) {
	writeFileSync(${JSON.stringify(join(dir, "pid"))}, String(process.pid));
	pi.on("session_shutdown", (event) => {
		appendFileSync(${JSON.stringify(join(dir, "shutdown.log"))}, "session_shutdown " + event.reason + "\\n");
	});
	process.on("exit", (code) => {
		writeFileSync(${JSON.stringify(join(dir, "exit-code.tmp"))}, String(code));
		renameSync(${JSON.stringify(join(dir, "exit-code.tmp"))}, ${JSON.stringify(join(dir, "exit-code"))});
	});
}
`;

/** SIGKILLs the settle the witness in `dir` named, if it still runs (test cleanup; the assertions came first). */
export function killWitnessed(dir: string): void {
	try {
		process.kill(Number(readFileSync(join(dir, "pid"), "utf8")), "SIGKILL");
	} catch {
		// gone, or never started
	}
}
