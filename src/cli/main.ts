/**
 * The `settle` command. `bin/settle.js` imports the bundled `dist/cli.js`; during
 * development run `npx tsx src/cli/main.ts …`.
 */
import { existsSync, readFileSync, realpathSync, type Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { errorMessage } from "../errors.js";
import { collectExtensionFlags } from "../extensions/flags.js";
import type { ExtensionFlag } from "../extensions/types.js";
import { useEnvProxy } from "../llm/env-proxy.js";
import type { ImageContent } from "../llm/types.js";
import { jsonLine } from "../rpc/jsonl.js";
import type { AgentSessionRuntime } from "../runtime/runtime.js";
import { shellWord } from "../shell-word.js";
import { detectImageMimeTypeFromFile, detectUnsendableImageFormat, unsendableImageHint } from "../tools/image.js";
import { prepareImageForPrompt } from "../tools/image-resize.js";
import { resolveReadPath } from "../tools/paths.js";
import { isPdf, looksBinary } from "../tools/read.js";
import { decodeText, utf16Note } from "../tools/text-encoding.js";
import { type CliMode, type ParsedArgs, parseArgs } from "./args.js";
import { ChatInput } from "./chat-input.js";
import { runDemo } from "./demo.js";
import { EXIT_AUTH, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, HELP_POINTER, helpText } from "./help.js";
import {
	CliError,
	oneLine,
	resourceWarningsAfterStart,
	SessionPickCancelled,
	type StartHostHooks,
	startHost,
} from "./host.js";
import { startCliInspector } from "./inspect.js";
import { runInteractiveMode, startsInteractive } from "./interactive-mode.js";
import { createStyle, shouldUseColor, streamSafe } from "./interactive-render.js";
import { PACKAGE_COMMANDS, runPackageCommand } from "./package-commands.js";
import { piFolderHintShown, piModelsHint } from "./pi-folder.js";
import type { CliOutput } from "./print-mode.js";
import { runPrintMode } from "./print-mode.js";
import { runRpcMode } from "./rpc-mode.js";
import { pickSession } from "./session-picker.js";
import { destroyedStdinError, stdinState } from "./stdin-state.js";
import {
	explainStall,
	guardExtensionErrors,
	guardRuntime,
	keepStdoutForSettle,
	processStdout,
	stdoutRoom,
	termination,
	watchStdout,
} from "./termination.js";
import { startCliTrace } from "./trace.js";
import { unknownOptionErrors } from "./unknown-options.js";

/** The process streams (stdout writes stop once a reader closed it: `settle … | head -1`). */
const processOutput: CliOutput = {
	stdout: (text) => processStdout.write(text),
	// On a terminal, what settle itself reports there (a provider's error text, a retry notice, a
	// warning naming a file of the project) cannot drive it: control characters are made visible.
	stderr: (text) => process.stderr.write(process.stderr.isTTY ? streamSafe(text) : text),
	room: stdoutRoom,
	stdoutIsTerminal: process.stdout.isTTY === true,
};

/** What `settle -i --theme …` / `--no-themes` says once: the options are accepted for pi's scripts and change nothing. */
const THEMES_NOTE =
	"Note: --theme and --no-themes are pi's terminal-UI options; Settle's chat is line-based and has no themes (NO_COLOR turns its colours off).";

/**
 * Runs the CLI with `argv` (without `node` and the script) and returns the exit code.
 *
 * @example
 * ```ts
 * const code = await main(["--faux", "-p", "hello"]); // prints "hello"
 * ```
 */
export async function main(argv: readonly string[], out: CliOutput = processOutput): Promise<number> {
	// pi's package commands take their own few options (-l, a source), so they are parsed apart.
	if (argv[0] !== undefined && PACKAGE_COMMANDS.has(argv[0]))
		return await runPackageCommand(argv[0], argv.slice(1), out);
	const args = parseArgs(argv);
	for (const diagnostic of args.diagnostics) {
		out.stderr(`${diagnostic.type === "error" ? "Error" : "Warning"}: ${diagnostic.message}\n`);
	}
	const optionErrors = args.diagnostics.filter((diagnostic) => diagnostic.type === "error");
	if (optionErrors.length > 0) {
		sayJsonRefusal(args, out, optionErrors.map((diagnostic) => diagnostic.message).join("\n"));
		out.stderr(HELP_POINTER);
		return EXIT_USAGE;
	}
	// pi's precedence, whatever the order on the command line: --version, then --help, then --list-models.
	if (args.version) {
		out.stdout(`${packageVersion()}\n`);
		return EXIT_OK;
	}
	// pi's order: --export runs after --version and before everything else (its first message is the output).
	if (args.export !== undefined) return await exportHtml(args.export, args.messages[0], out);
	if (args.help) {
		out.stdout(helpText(await projectExtensionFlags(args)));
		return EXIT_OK;
	}
	// Scripts parse stdout: an extension's console.log must not land between the JSON lines (as pi).
	const keepsStdout =
		out === processOutput && (args.mode ?? (startsInteractive(args) ? "interactive" : "text")) !== "interactive";
	const restoreStdout = keepsStdout ? keepStdoutForSettle() : undefined;
	try {
		if (args.command === "demo") {
			if (args.commandArgs.length > 0) {
				out.stderr(`Error: settle demo takes no arguments, got: ${args.commandArgs.join(" ")}\n`);
				return EXIT_USAGE;
			}
			return await runDemo(out);
		}
		if (args.command === "viz") return await writeDiagrams(args.commandArgs, out);
		if (args.command === "trace") {
			// Loaded on demand, as viz: the viewer draws the machines (dagre), which a prompt run never needs.
			const { renderTraceCommand } = await import("./trace-command.js");
			return await renderTraceCommand(args.commandArgs, args.traceOutput, out);
		}

		// Options no extension can own are refused before anything loads (the others, once extensions have).
		const unknown = unknownOptionErrors(args);
		if (unknown.errors.length > 0) {
			for (const line of unknown.errors) out.stderr(`Error: ${line}\n`);
			if (unknown.note) out.stderr(`${unknown.note}\n`);
			sayJsonRefusal(args, out, [...unknown.errors, ...(unknown.note ? [unknown.note] : [])].join("\n"));
			out.stderr(HELP_POINTER);
			return EXIT_USAGE;
		}
		if (args.listModels !== undefined) return await listModels(args, out);

		const mode: CliMode = args.mode ?? (startsInteractive(args) ? "interactive" : "text");
		if (args.resume && mode !== "interactive") {
			// pi opens its full-screen picker in every mode; Settle asks in the chat only (stdin is the prompt or RPC's).
			const refusal =
				"--resume asks which session to continue in the chat (settle -i -r). With -p, --json or --rpc name it: --session <id-prefix>, or -c for this project's latest.";
			sayJsonRefusal(args, out, refusal);
			out.stderr(`Error: ${refusal}\n`);
			out.stderr(HELP_POINTER);
			return EXIT_USAGE;
		}
		// A trace path that cannot be written fails before anything runs.
		const trace = args.trace !== undefined ? startCliTrace(args.trace) : undefined;
		// The chat reads its lines from stdin: no piped prompt, and a prompt is not required.
		const readsPrompt = mode !== "rpc" && mode !== "interactive";
		const noPrompt = () => {
			const refusal =
				'no prompt. Give one (settle -p "<prompt>"), pipe it on stdin, or use --rpc; -i starts a chat. See settle --help.';
			sayJsonRefusal(args, out, refusal);
			out.stderr(`Error: ${refusal}\n`);
			return EXIT_USAGE;
		};
		// Fail fast without a prompt, unless there are unknown options: the extensions decide whether they
		// are flags (a boolean one gives back the argument it took) or mistakes (`--resume`), which say so first.
		let piped: string | undefined;
		const checkFlagsFirst = args.unknownFlags.length > 0;
		if (readsPrompt && args.messages.every(isBlank) && args.fileArgs.length === 0 && !checkFlagsFirst) {
			piped = await readPipedStdin(out);
			if (!piped?.trim()) return noPrompt();
		}
		const fileArguments = await readFileArguments(args.fileArgs, out);
		// -r: the chat's input opens first, to ask which session to start on before any session exists (as pi).
		const chatInput = mode === "interactive" && args.resume ? new ChatInput() : undefined;
		let host: Awaited<ReturnType<typeof startHost>>;
		try {
			host = await startHost(args, chatInput ? { pickSession: askForSession(chatInput, out) } : {});
		} catch (error) {
			chatInput?.close();
			if (error instanceof SessionPickCancelled) return EXIT_OK;
			throw error;
		}
		const { runtime } = host;
		// A models.json provider waiting for an extension: said once session_start ran (print modes),
		// unless a handler registered it; the other modes show the chat or serve commands first. Said
		// once, also when the run ends before that (no prompt, no model, a bad @file).
		let providerWarningsSaid = false;
		const sayProviderWarnings = (): void => {
			if (providerWarningsSaid) return;
			providerWarningsSaid = true;
			const served = new Set(runtime.services.modelRuntime.getAll().map((model) => model.provider));
			for (const [provider, warning] of host.providerWarnings) {
				if (!served.has(provider)) out.stderr(`Warning: ${oneLine(warning.message)}\n`);
			}
		};
		// Said once the first session_start and resources_discover ran, in every mode: the folders an
		// extension added were not read before (the start-up warnings above are not repeated).
		let discoveredSaid = false;
		const discoveredWarnings = (): string[] => {
			if (discoveredSaid) return [];
			discoveredSaid = true;
			return resourceWarningsAfterStart(runtime);
		};
		const sayDiscoveredWarnings = (): void => {
			for (const warning of discoveredWarnings()) out.stderr(`Warning: ${oneLine(warning)}\n`);
		};
		try {
			// Refuses a trace path that is the session's file (exit 2) before anything runs.
			trace?.follow(runtime);
		} catch (error) {
			await runtime.dispose();
			throw error;
		}
		// Served for the whole run, closed after the runtime is disposed (the page then says it ended).
		const inspector = args.inspect ? await startCliInspector(runtime, args.inspectPort, out) : undefined;
		try {
			const files = await fileArgumentsPrompt(fileArguments, runtime.services.settingsManager.getImageAutoResize());
			// A blank prompt argument (`settle -p "$PROMPT"` with it unset) says nothing: no request for it.
			let messages = readsPrompt ? host.messages.filter((message) => !isBlank(message)) : host.messages;
			// As pi: the @files' text goes before the first prompt (it ends with a newline), or is the prompt.
			if (files.text) messages = [`${files.text}${messages[0] ?? ""}`, ...messages.slice(1)];
			if (readsPrompt) {
				// As pi: piped text (trimmed) is the prompt, or goes before the first prompt (`cat log | settle -p "why?"`).
				piped ??= await readPipedStdin(out);
				const stdinText = piped?.trim();
				if (messages.length === 0) {
					if (!stdinText) {
						sayProviderWarnings();
						await runtime.dispose();
						return noPrompt();
					}
					messages = [stdinText];
				} else if (stdinText) {
					messages = [`${stdinText}\n\n${messages[0]}`, ...messages.slice(1)];
				}
			}
			for (const warning of host.warnings) out.stderr(`Warning: ${oneLine(warning.message)}\n`);
			if (mode !== "text" && mode !== "json") sayProviderWarnings();
			if (host.piHint) piFolderHintShown(runtime.services.agentDir);
			const noModel = runtime.session.model === undefined;
			if (runtime.modelFallbackMessage && (!noModel || !readsPrompt)) {
				out.stderr(`Warning: ${restoreFallbackForCli(runtime.modelFallbackMessage, runtime)}\n`);
			}
			const model = runtime.session.model;
			if (files.images.length > 0 && model && !model.input.includes("image")) {
				out.stderr(imagesNotSentWarning(files.images.length, model));
			}
			// Signals and a closed stdout end the process cleanly while it runs (the real process only).
			const release = out === processOutput && mode !== "interactive" ? guardRuntime(runtime) : () => {};
			// An extension's own timer or listener that throws is its error, not the process's end.
			const releaseErrors = out === processOutput ? guardExtensionErrors(runtime) : () => {};
			try {
				if (mode === "rpc") return await runRpcMode(runtime, process.stdin, out, sayDiscoveredWarnings);
				if (mode === "interactive") {
					// pi's --theme / --no-themes style its terminal UI; Settle's chat has none (the other modes print no colours).
					if (args.themes.length > 0 || args.noThemes) out.stderr(`${THEMES_NOTE}\n`);
					const handleSignals = out === processOutput;
					return await runInteractiveMode(
						runtime,
						{
							messages,
							images: files.images,
							handleSignals,
							verbose: args.verbose,
							warningsAfterStart: discoveredWarnings,
							...(chatInput ? { lines: chatInput, resumedAtStart: host.resumed === true } : {}),
							...(host.linkFolder ? { linkFolder: host.linkFolder } : {}),
						},
						out,
					);
				}
				if (noModel) {
					sayProviderWarnings();
					const refusal = runtime.modelFallbackMessage ?? "No model selected.";
					sayJsonRefusal(args, out, refusal);
					out.stderr(`Error: ${refusal}\n`);
					// No model has a key (what a CI job without its secret gets).
					return EXIT_AUTH;
				}
				requestedExitCode.honoured = true;
				return await runPrintMode(
					runtime,
					{
						mode,
						messages,
						images: files.images,
						onSessionStarted: () => {
							sayProviderWarnings();
							sayDiscoveredWarnings();
						},
					},
					out,
				);
			} finally {
				// The signal handlers stay until the extensions' session_shutdown handlers are done: a
				// signal meanwhile ends the process as the termination code says, not by Node's default kill.
				// The chat's own handlers ended with it (a terminal closed as it shut down: pi#3057).
				const releaseShutdown = out === processOutput && mode === "interactive" ? guardRuntime(runtime) : () => {};
				await runtime.dispose();
				releaseShutdown();
				release();
				releaseErrors();
				// Throws a CliError (exit 1) when the file cannot be written.
				trace?.save();
			}
		} finally {
			// Before the error the run ended with, which the catch below prints.
			sayProviderWarnings();
			await inspector?.close();
		}
	} catch (error) {
		let text = isCurrentDirectoryGone(error) ? CURRENT_DIRECTORY_GONE : errorMessage(error);
		if (error instanceof CliError) text = error.message.replace(/^Error: /, "");
		// A run that fails to start (an unknown --session, a missing @file) ends the JSON stream with
		// why, as a refused prompt does: its reader gets no other line (opencode#27559).
		sayJsonRefusal(args, out, text);
		out.stderr(`Error: ${text}\n`);
		return error instanceof CliError ? error.exitCode : EXIT_FAILURE;
	} finally {
		restoreStdout?.();
	}
}

/**
 * Under `--json`, why the run could not start as the stream's one line: its reader gets no other
 * (opencode#27559). stderr says it too, in prose.
 */
function sayJsonRefusal(args: ParsedArgs, out: CliOutput, message: string): void {
	if (args.mode === "json") out.stdout(jsonLine({ type: "error", message }));
}

/**
 * `-r`'s question on the chat's output, its answer read from the chat's input (the lines after it
 * stay the chat's): pi's session picker, asked before the runtime starts.
 */
/** Whether a prompt argument holds only whitespace (providers refuse such a message, or answer noise). */
function isBlank(message: string): boolean {
	return message.trim() === "";
}

function askForSession(input: ChatInput, out: CliOutput): NonNullable<StartHostHooks["pickSession"]> {
	const style = createStyle(out === processOutput && shouldUseColor(process.stdout, process.env));
	let lineStart = true;
	const write = (text: string) => {
		if (text === "") return;
		out.stdout(text);
		lineStart = text.endsWith("\n");
	};
	const print = (line: string) => write(`${lineStart ? "" : "\n"}${line}\n`);
	return (folders, open) =>
		pickSession(
			folders,
			{ print, notice: (line) => print(style.dim(line)) },
			(question) => input.ask(question, write, out === processOutput),
			open,
		);
}

/**
 * The SDK's `Could not restore model <p>/<id>` (pi's SDK text) with why, as pi's CLI says it, and
 * where the provider is when pi's models.json defines it.
 */
const CURRENT_DIRECTORY_GONE =
	"The current directory no longer exists (deleted or moved): cd into the project again, or give it with --cwd <dir>.";

/** Node's `process.cwd()` failing (the shell's folder was deleted): was only `ENOENT: …, uv_cwd`. */
function isCurrentDirectoryGone(error: unknown): boolean {
	return (error as NodeJS.ErrnoException | undefined)?.syscall === "uv_cwd";
}

function restoreFallbackForCli(message: string, runtime: AgentSessionRuntime): string {
	const match = /^Could not restore model ([^/\s]+)\/(\S+?)(\. Using .*)?$/.exec(message);
	if (!match) return message;
	const [, provider, id, rest] = match;
	const known = runtime.services.modelRuntime.getModel(provider!, id!) !== undefined;
	const reason = known ? `no key for ${provider}` : `no model ${provider}/${id} here`;
	const pi = known ? undefined : piModelsHint({ provider: provider!, agentDir: runtime.services.agentDir });
	return `Could not restore model ${provider}/${id} (${reason})${rest ?? ""}.${pi ? ` ${pi}` : ""}`;
}

/** `--export <session.jsonl> [output.html]`: pi's messages (`Exported to: <path>`, `Error: …` and exit 1). */
async function exportHtml(sessionFile: string, outputPath: string | undefined, out: CliOutput): Promise<number> {
	try {
		const { exportSessionToHtml } = await import("../export/index.js");
		// Lines the page leaves out are named (pi skips them silently); the file itself is not changed.
		const onDiagnostic = (diagnostic: { message: string }) => out.stderr(`Warning: ${diagnostic.message}\n`);
		const path = await exportSessionToHtml(sessionFile, {
			...(outputPath === undefined ? {} : { outputPath }),
			onDiagnostic,
		});
		out.stdout(`Exported to: ${path}\n`);
		return EXIT_OK;
	} catch (error) {
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

/**
 * The flags the project's extensions register, for `--help` (as pi lists them). Loading them must
 * not stop the help: whatever fails to start (a bad setting, an unknown flag) leaves them out.
 */
async function projectExtensionFlags(args: ParsedArgs): Promise<ExtensionFlag[]> {
	try {
		// Flags need no model: the offline one keeps real providers (pi-ai) unloaded, and --help fast.
		const { model: _model, fauxScript: _script, ...rest } = args;
		const { runtime } = await startHost({ ...rest, noSession: true, faux: true });
		try {
			return [...collectExtensionFlags(runtime.services.extensionsResult.extensions).values()];
		} finally {
			await runtime.dispose();
		}
	} catch {
		return [];
	}
}

/** `--list-models [search]`: the models with credentials, one `provider/id` per line (pi's flag). */
async function listModels(args: ParsedArgs, out: CliOutput): Promise<number> {
	const { runtime, piHint, warnings, providerWarnings } = await startHost({ ...args, noSession: true });
	try {
		// What explains a model missing from the list: an unreadable auth.json or models.json (no
		// session_start runs here: a provider still waiting for an extension is said too).
		for (const warning of [...warnings, ...providerWarnings.values()]) {
			if (warning.source === "models" || warning.source === "credentials") {
				out.stderr(`Warning: ${oneLine(warning.message)}\n`);
			}
		}
		// pi#203: words apart (`"opus 4-5"`), each found in the model's provider/id or name.
		const words = typeof args.listModels === "string" ? args.listModels.toLowerCase().split(/\s+/) : [];
		const available = runtime.services.modelRuntime.getAvailable();
		const models = available.filter((model) => {
			const text = `${model.provider}/${model.id} ${model.name}`.toLowerCase();
			return words.every((word) => text.includes(word));
		});
		if (available.length === 0) {
			// An empty list is an answer, as a search matching nothing is (pi 0.73.1 exits 0 here too).
			out.stderr(`${runtime.modelFallbackMessage ?? "No models available."}\n`);
			if (piHint) {
				out.stderr(`${piHint}\n`);
				piFolderHintShown(runtime.services.agentDir);
			}
			return EXIT_OK;
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

/** An `@file` argument read before the session starts: a text file's `<file>` block, or an image's bytes. */
type FileArgument = { text: string } | { absolute: string; data: string; mimeType: string };

/**
 * `@file` arguments as pi reads them (paths relative to the shell's directory): a text file as
 * `<file name="/abs">\n…\n</file>\n`, an image as its base64 data; empty files are skipped. Throws
 * {@link CliError} (usage) for a file that is missing or unreadable, before anything starts.
 */
async function readFileArguments(paths: readonly string[], out: CliOutput): Promise<FileArgument[]> {
	const files: FileArgument[] = [];
	for (const path of paths) {
		const absolute = resolve(resolveReadPath(path, process.cwd()));
		let found: Stats;
		try {
			found = await stat(absolute);
		} catch {
			throw new CliError(`File not found: ${absolute}`, EXIT_USAGE);
		}
		// Read as a file, a folder gave a raw EISDIR (gemini-cli#4028: its contents silently never sent).
		if (found.isDirectory()) throw new CliError(folderFileArgument(path, absolute), EXIT_USAGE);
		if (found.size === 0) continue;
		try {
			const mimeType = await detectImageMimeTypeFromFile(absolute);
			if (mimeType) files.push({ absolute, data: (await readFile(absolute)).toString("base64"), mimeType });
			else {
				// As the read tool: a UTF-16 file (with its mark) is decoded, not refused as binary (gemini-cli#5961).
				const bytes = await readFile(absolute);
				const { text, decodedFrom, notUtf8 } = decodeText(bytes);
				// As the read tool: an iPhone photo (HEIC) or a TIFF is named, with the command converting it.
				const format = detectUnsendableImageFormat(bytes);
				if (format)
					throw new CliError(
						`@${path}: ${absolute} ${unsendableImageHint(format, absolute, "attach the copy")}`,
						EXIT_USAGE,
					);
				// As the read tool (pi#5289): decoded as text, a binary file sends the model NUL bytes.
				if (looksBinary(decodedFrom ? Buffer.from(text) : bytes))
					throw new CliError(binaryFileArgument(path, absolute), EXIT_USAGE);
				// As the read tool (hermes-agent#43059): a PDF's start can hold no NUL byte.
				if (isPdf(bytes)) throw new CliError(pdfFileArgument(path, absolute), EXIT_USAGE);
				// As the read tool (claude-code#9019): a Windows-1252 file's accents reached the model as U+FFFD, unsaid.
				if (notUtf8) out.stderr(notUtf8FileArgumentWarning(path, absolute));
				const note = decodedFrom
					? `${utf16Note(decodedFrom)}\n`
					: notUtf8
						? `${notUtf8FileArgumentNote(absolute)}\n`
						: "";
				files.push({ text: `<file name="${absolute}">\n${text}\n</file>\n${note}` });
			}
		} catch (error) {
			if (error instanceof CliError) throw error;
			throw new CliError(`Could not read file ${absolute}: ${errorMessage(error)}`, EXIT_USAGE);
		}
	}
	return files;
}

/**
 * Said when the model cannot take the `@file` images: it gets a note in their place, and the user,
 * told nothing, saw an answer about no image (Factory-AI/factory#24). A models.json model without
 * `input` is text-only.
 */
function imagesNotSentWarning(count: number, model: { provider: string; id: string }): string {
	const images = count === 1 ? "1 @file image was" : `${count} @file images were`;
	return `Warning: ${images} not sent: the model ${model.provider}/${model.id} does not accept images (its input has no "image"), so it gets a note in their place. If it reads images, add "input": ["text", "image"] to it in models.json; otherwise choose one that does (--model).\n`;
}

function pdfFileArgument(path: string, absolute: string): string {
	return `@${path}: ${absolute} is a PDF document: @file attaches text files and jpg/png/gif/webp images. Convert it to text first (for example pdftotext) and attach that, or leave it out.`;
}

function notUtf8FileArgumentNote(absolute: string): string {
	return `[${absolute} is not UTF-8 text (each sequence of its bytes that is not shows as \ufffd), and edit refuses it. To read it, convert it with bash: iconv -f <its encoding> -t UTF-8 ${shellWord(absolute)} (for example CP1252, GBK, SHIFT_JIS).]`;
}

function notUtf8FileArgumentWarning(path: string, absolute: string): string {
	return `Warning: @${path}: ${absolute} is not UTF-8 text; the model gets U+FFFD (\ufffd) in place of its bytes that are not, with a note saying so. Convert it first (iconv -f <its encoding> -t UTF-8) to send its text.\n`;
}

function folderFileArgument(path: string, absolute: string): string {
	const folder = path.replace(/\/+$/, "");
	return `@${path}: ${absolute} is a folder: @file attaches files, one each (@${folder}/<file> …). To have the model look through the folder, leave out the @ and name it in the prompt: the model lists and reads it with its ls, find and read tools.`;
}

function binaryFileArgument(path: string, absolute: string): string {
	return `@${path}: ${absolute} looks like a binary file (a NUL byte in its first 8000 bytes): @file attaches text files and jpg/png/gif/webp images. Convert it to text first (for example pdftotext, unzip -l or strings) and attach that, or leave it out.`;
}

/**
 * The `@file` arguments as prompt text and attachments. As pi: images are resized like the read
 * tool's unless the `images.autoResize` setting is off, and each image's `<file>` tag holds the
 * dimension note or why it was left out.
 */
async function fileArgumentsPrompt(
	files: readonly FileArgument[],
	autoResize: boolean,
): Promise<{ text: string; images: ImageContent[] }> {
	let text = "";
	const images: ImageContent[] = [];
	for (const file of files) {
		if ("text" in file) {
			text += file.text;
			continue;
		}
		const { image, note } = await prepareImageForPrompt(file.data, file.mimeType, { autoResize });
		if (image) images.push(image);
		text += `<file name="${file.absolute}">${note}</file>\n`;
	}
	return { text, images };
}

/** How long an open stdin may stay silent before {@link readPipedStdin} says what it waits for. */
const STDIN_SILENCE_NOTICE_MS = 2000;

/**
 * Reads stdin when it is piped (not a terminal); undefined otherwise. As pi, it reads to the end
 * (a slow writer loses nothing). Unlike pi (pi#7593, pi#5571), a pipe that stays open and sends
 * nothing is not a silent hang: after {@link STDIN_SILENCE_NOTICE_MS} one stderr line names it.
 */
async function readPipedStdin(out: CliOutput): Promise<string | undefined> {
	if (process.stdin.isTTY) return undefined;
	// An embedder may have read or destroyed stdin before runCli (pi#8587).
	const state = stdinState(process.stdin);
	if (state === "ended") return "";
	if (state === "destroyed") throw destroyedStdinError("the piped prompt");
	const chunks: Buffer[] = [];
	const notice = setTimeout(() => {
		out.stderr(
			"Waiting for piped stdin to end: it is open and has sent nothing. The prompt runs when it closes; run with </dev/null to skip it.\n",
		);
	}, STDIN_SILENCE_NOTICE_MS);
	try {
		for await (const chunk of process.stdin) {
			clearTimeout(notice);
			chunks.push(chunk as Buffer);
		}
	} finally {
		clearTimeout(notice);
	}
	return decodePipedStdin(Buffer.concat(chunks), out);
}

/**
 * Stdin as UTF-8 text, or as UTF-16 when it starts with that mark. Bytes that are not UTF-8 (a binary file, a Latin-1 log) still become U+FFFD,
 * but no longer silently (apfel#397): a script gets a warning on stderr instead of a confident
 * answer about text the model never saw.
 */
function decodePipedStdin(bytes: Buffer, out: CliOutput): string {
	// A UTF-16 file piped as it is (cmd's `type notes.txt |`, `< notes.txt`): its text, as @file reads it.
	const wide = decodeText(bytes);
	if (wide.decodedFrom) return wide.text;
	try {
		return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
	} catch {
		out.stderr(
			"Warning: piped stdin holds bytes that are not UTF-8 text; the model gets U+FFFD (�) in their place. Convert it first (iconv -f latin1 -t utf-8), or attach an image as @file.\n",
		);
		return bytes.toString("utf8");
	}
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
	// The loop only empties mid-run when a promise can never settle (a stuck extension handler).
	const onStall = () => {
		process.stderr.write(explainStall());
		process.exit(1);
	};
	process.on("beforeExit", onStall);
	await useEnvProxy();
	const ran = await main(argv).finally(() => process.off("beforeExit", onStall));
	const code = requestedExitCode.honoured ? withRequestedExitCode(ran, process.exitCode) : ran;
	process.exitCode = code;
	// A closed pipe never drains: its EPIPE ends the wait too.
	await processStdout.flushed();
	process.exit(termination.code ?? code);
}

/**
 * Whether this process ran a one-shot `-p` / `--mode json` run, whose exit code a command or
 * extension may set through `process.exitCode` (pi's print mode honours it; its RPC and interactive
 * modes exit with their own code).
 */
const requestedExitCode = { honoured: false };

/**
 * The code the process exits with: the run's own, unless the run succeeded and an extension or one
 * of its commands set `process.exitCode` to report a verdict (gsd-pi#1293) — a one-shot
 * `settle -p "/check"` then exits with that code, as pi's does. A failed run keeps its own code.
 */
function withRequestedExitCode(code: number, requested: number | string | null | undefined): number {
	if (code !== 0 || requested === undefined || requested === null) return code;
	const value = Number(requested);
	return Number.isInteger(value) ? value : code;
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
