/**
 * The `settle` command. `bin/settle.js` imports the bundled `dist/cli.js`; during
 * development run `npx tsx src/cli/main.ts …`.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { errorMessage } from "../errors.js";
import type { ImageContent } from "../llm/types.js";
import { detectImageMimeTypeFromFile } from "../tools/image.js";
import { resolveReadPath } from "../tools/paths.js";
import { MAX_INLINE_IMAGE_BYTES } from "../tools/read.js";
import { type CliMode, type ParsedArgs, parseArgs } from "./args.js";
import { runDemo } from "./demo.js";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, helpText } from "./help.js";
import { CliError, oneLine, startHost } from "./host.js";
import { runInteractiveMode, startsInteractive } from "./interactive-mode.js";
import type { CliOutput } from "./print-mode.js";
import { runPrintMode } from "./print-mode.js";
import { runRpcMode } from "./rpc-mode.js";
import { guardRuntime, processStdout, termination, watchStdout } from "./termination.js";

/** The process streams (stdout writes stop once a reader closed it: `settle … | head -1`). */
const processOutput: CliOutput = {
	stdout: (text) => processStdout.write(text),
	stderr: (text) => process.stderr.write(text),
};

/**
 * Runs the CLI with `argv` (without `node` and the script) and returns the exit code.
 *
 * @example
 * ```ts
 * const code = await main(["--faux", "-p", "hello"]); // prints "hello"
 * ```
 */
export async function main(argv: readonly string[], out: CliOutput = processOutput): Promise<number> {
	const args = parseArgs(argv);
	for (const diagnostic of args.diagnostics) {
		out.stderr(`${diagnostic.type === "error" ? "Error" : "Warning"}: ${diagnostic.message}\n`);
	}
	if (args.diagnostics.some((diagnostic) => diagnostic.type === "error")) {
		out.stderr("Run settle --help for the options.\n");
		return EXIT_USAGE;
	}
	// pi's precedence, whatever the order on the command line: --version, then --help, then --list-models.
	if (args.version) {
		out.stdout(`${packageVersion()}\n`);
		return EXIT_OK;
	}
	if (args.help) {
		out.stdout(helpText());
		return EXIT_OK;
	}
	try {
		if (args.command === "demo") return await runDemo(out);
		if (args.command === "viz") return await writeDiagrams(args.commandArgs, out);

		if (args.listModels !== undefined) return await listModels(args, out);

		const mode: CliMode = args.mode ?? (startsInteractive(args) ? "interactive" : "text");
		// The chat reads its lines from stdin: no piped prompt, and a prompt is not required.
		const readsPrompt = mode !== "rpc" && mode !== "interactive";
		const noPrompt = () => {
			out.stderr(
				'Error: no prompt. Give one (settle -p "<prompt>"), pipe it on stdin, or use --rpc; -i starts a chat. See settle --help.\n',
			);
			return EXIT_USAGE;
		};
		// Fail fast without a prompt, unless an extension flag took the next argument (a boolean one gives it back).
		let piped: string | undefined;
		const mayReclaim = args.unknownFlags.some((flag) => flag.valueWasNextArg);
		if (readsPrompt && args.messages.length === 0 && args.fileArgs.length === 0 && !mayReclaim) {
			piped = await readPipedStdin();
			if (!piped?.trim()) return noPrompt();
		}
		const files = await readFileArguments(args.fileArgs);
		const host = await startHost(args);
		const { runtime } = host;
		let messages = host.messages;
		// As pi: the @files' text goes before the first prompt (it ends with a newline), or is the prompt.
		if (files.text) messages = [`${files.text}${messages[0] ?? ""}`, ...messages.slice(1)];
		if (readsPrompt) {
			// As pi: piped text (trimmed) is the prompt, or goes before the first prompt (`cat log | settle -p "why?"`).
			piped ??= await readPipedStdin();
			const stdinText = piped?.trim();
			if (messages.length === 0) {
				if (!stdinText) {
					await runtime.dispose();
					return noPrompt();
				}
				messages = [stdinText];
			} else if (stdinText) {
				messages = [`${stdinText}\n\n${messages[0]}`, ...messages.slice(1)];
			}
		}
		for (const warning of host.warnings) out.stderr(`Warning: ${oneLine(warning.message)}\n`);
		const noModel = runtime.session.model === undefined;
		if (runtime.modelFallbackMessage && (!noModel || !readsPrompt)) {
			out.stderr(`Warning: ${runtime.modelFallbackMessage}\n`);
		}
		// Signals and a closed stdout end the process cleanly while it runs (the real process only).
		const release = out === processOutput && mode !== "interactive" ? guardRuntime(runtime) : () => {};
		try {
			if (mode === "rpc") return await runRpcMode(runtime, process.stdin, out);
			if (mode === "interactive") {
				const handleSignals = out === processOutput;
				return await runInteractiveMode(runtime, { messages, images: files.images, handleSignals }, out);
			}
			if (noModel) {
				out.stderr(`Error: ${runtime.modelFallbackMessage ?? "No model selected."}\n`);
				return EXIT_FAILURE;
			}
			return await runPrintMode(runtime, { mode, messages, images: files.images }, out);
		} finally {
			release();
			await runtime.dispose();
		}
	} catch (error) {
		if (error instanceof CliError) {
			out.stderr(`${error.message.startsWith("Error:") ? "" : "Error: "}${error.message}\n`);
			return error.exitCode;
		}
		out.stderr(`Error: ${errorMessage(error)}\n`);
		return EXIT_FAILURE;
	}
}

async function writeDiagrams(args: readonly string[], out: CliOutput): Promise<number> {
	if (args.length > 1) {
		out.stderr(`Error: settle viz takes one folder, got ${args.length}: ${args.join(" ")}\n`);
		return EXIT_USAGE;
	}
	const { writeVisualizations } = await import("../inspect/visualizations.js");
	const target = resolve(args[0] ?? "visualizations");
	for (const path of await writeVisualizations(target)) out.stdout(`wrote ${path}\n`);
	return EXIT_OK;
}

/** `--list-models [search]`: the models with credentials, one `provider/id` per line (pi's flag). */
async function listModels(args: ParsedArgs, out: CliOutput): Promise<number> {
	const { runtime } = await startHost({ ...args, noSession: true });
	try {
		const search = typeof args.listModels === "string" ? args.listModels.toLowerCase() : undefined;
		const available = runtime.services.modelRuntime.getAvailable();
		const models = available.filter(
			(model) => !search || `${model.provider}/${model.id} ${model.name}`.toLowerCase().includes(search),
		);
		if (available.length === 0) {
			out.stderr(`Error: ${runtime.modelFallbackMessage ?? "No models available."}\n`);
			return EXIT_FAILURE;
		}
		const width = Math.max(...models.map((model) => model.provider.length + model.id.length + 1), 0);
		for (const model of models) {
			const name = `${model.provider}/${model.id}`.padEnd(width);
			out.stdout(`${name}  ${model.contextWindow} tokens${model.reasoning ? "  thinking" : ""}\n`);
		}
		if (models.length === 0) out.stderr(`No model matches "${args.listModels}" (${available.length} available).\n`);
		return EXIT_OK;
	} finally {
		await runtime.dispose();
	}
}

/**
 * `@file` arguments as pi reads them (paths relative to the shell's directory): a text file as
 * `<file name="/abs">\n…\n</file>\n`, an image as an attachment with an empty `<file>` tag; empty
 * files are skipped. Throws {@link CliError} (usage) for a file that is missing or unreadable.
 */
async function readFileArguments(paths: readonly string[]): Promise<{ text: string; images: ImageContent[] }> {
	let text = "";
	const images: ImageContent[] = [];
	for (const path of paths) {
		const absolute = resolve(resolveReadPath(path, process.cwd()));
		let size: number;
		try {
			size = (await stat(absolute)).size;
		} catch {
			throw new CliError(`File not found: ${absolute}`, EXIT_USAGE);
		}
		if (size === 0) continue;
		try {
			const mimeType = await detectImageMimeTypeFromFile(absolute);
			if (!mimeType) {
				text += `<file name="${absolute}">\n${await readFile(absolute, "utf8")}\n</file>\n`;
				continue;
			}
			const data = (await readFile(absolute)).toString("base64");
			// Settle ships no image library (pi shrinks big images): one over the inline limit is left out, and said so.
			if (data.length >= MAX_INLINE_IMAGE_BYTES) {
				text += `<file name="${absolute}">[Image omitted: over the inline image size limit; attach a smaller copy.]</file>\n`;
				continue;
			}
			images.push({ type: "image", mimeType, data });
			text += `<file name="${absolute}"></file>\n`;
		} catch (error) {
			throw new CliError(`Could not read file ${absolute}: ${errorMessage(error)}`, EXIT_USAGE);
		}
	}
	return { text, images };
}

/** Reads stdin when it is piped (not a terminal); undefined otherwise. */
async function readPipedStdin(): Promise<string | undefined> {
	if (process.stdin.isTTY) return undefined;
	const chunks: Buffer[] = [];
	for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString("utf8");
}

function packageVersion(): string {
	let dir = dirname(fileURLToPath(import.meta.url));
	for (let i = 0; i < 5; i++) {
		const file = join(dir, "package.json");
		if (existsSync(file)) {
			const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
			if (pkg.name === "settle") return pkg.version ?? "0.0.0";
		}
		dir = dirname(dir);
	}
	return "unknown";
}

/**
 * Runs the CLI for this process and exits with its code, after stdout drained (a pipe may be
 * slow) — even if some handle would keep the process alive.
 */
export async function runCli(argv: readonly string[] = process.argv.slice(2)): Promise<never> {
	watchStdout();
	const code = await main(argv);
	process.exitCode = code;
	if (process.stdout.writableNeedDrain && !processStdout.closed) {
		// A closed pipe never drains: its EPIPE ends the wait too.
		await new Promise<void>((done) => {
			process.stdout.once("drain", done);
			processStdout.onClosed = done;
		});
	}
	process.exit(termination.code ?? code);
}

/** `npx tsx src/cli/main.ts …` / `node dist/cli.js …` run it directly; bin/settle.js calls {@link runCli}. */
function isEntryPoint(): boolean {
	const entry = process.argv[1];
	if (!entry) return false;
	try {
		return realpathSync(resolve(entry)) === realpathSync(fileURLToPath(import.meta.url));
	} catch {
		return false;
	}
}

if (isEntryPoint()) await runCli();
