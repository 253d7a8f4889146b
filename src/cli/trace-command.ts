/**
 * `settle trace <file> [-o|--output out.html]`: renders a saved lifecycle trace (`settle --trace`,
 * `saveTrace()`) as the offline trace viewer — one standalone HTML file.
 */
import { writeFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import { sameFile } from "../export/write-file.js";
import type { LifecycleTrace } from "../inspect/trace.js";
import { loadTrace } from "../inspect/trace-file.js";
import { renderTraceHtml } from "../inspect/trace-viewer.js";
import { makeFoldersAsync, PRIVATE_FILE_MODE } from "../store/folders.js";
import { EXIT_OK, EXIT_USAGE } from "./help.js";
import { CliError, oneLine } from "./host.js";
import type { CliOutput } from "./print-mode.js";

/** The viewer's default path: the trace's path without `.json`, plus `.html`. */
export function defaultViewerPath(tracePath: string): string {
	return `${tracePath.replace(/\.json$/i, "")}.html`;
}

/**
 * Renders the trace `args[0]` to `output` (default {@link defaultViewerPath}; missing folders are
 * created) and prints the HTML file's path. Throws {@link CliError} (exit 2) for a wrong command line, a file that cannot be
 * read or is not a trace, or an output that cannot be written.
 *
 * @example
 * ```ts
 * declare const out: { stdout(text: string): void; stderr(text: string): void };
 * await renderTraceCommand(["run.trace.json"], undefined, out); // writes and prints …/run.trace.html
 * ```
 */
export async function renderTraceCommand(
	args: readonly string[],
	output: string | undefined,
	out: CliOutput,
): Promise<number> {
	if (args.length !== 1) {
		throw new CliError(
			`settle trace takes one trace file${args.length ? `, got ${args.length}: ${args.join(" ")}` : ""}. Usage: settle trace <file> [-o|--output out.html]`,
			EXIT_USAGE,
		);
	}
	const file = resolve(args[0]!);
	let trace: LifecycleTrace;
	try {
		trace = await loadTrace(file);
	} catch (error) {
		throw new CliError(notATraceText(file, error), EXIT_USAGE);
	}
	if (trace.machine === undefined) {
		throw new CliError(`${file}: the trace has no events, so there is nothing to show.`, EXIT_USAGE);
	}
	// Traces saved before they could hold several machines name only the first.
	const machines = trace.machines ?? [trace.machine];
	let html: string;
	try {
		html = renderTraceHtml(trace, undefined, { title: `${basename(file)}: ${machines.join(" + ")} lifecycle trace` });
	} catch (error) {
		const machine = error instanceof SettleError ? error.details?.machine : undefined;
		if (typeof machine !== "string") {
			throw new CliError(`${file}: cannot render the trace: ${oneLine(errorMessage(error))}`, EXIT_USAGE);
		}
		throw new CliError(
			`${file}: a trace of the machine "${machine}", not one of Settle's; render it with renderTraceHtml(trace, yourMachine) from settle/inspect.`,
			EXIT_USAGE,
		);
	}
	const target = resolve(output ?? defaultViewerPath(file));
	if (sameFile(target, file)) {
		throw new CliError(
			`Not writing the trace viewer over the trace ${file} itself: give another -o path (default: ${defaultViewerPath(file)}).`,
			EXIT_USAGE,
		);
	}
	try {
		// As `settle --export` does: `-o views/run.html` creates views/.
		await makeFoldersAsync(dirname(target));
		// The page holds the trace's events (prompts, errors): a new one is private (0600); one written over keeps its mode.
		await writeFile(target, html, { encoding: "utf8", mode: PRIVATE_FILE_MODE });
	} catch (error) {
		throw new CliError(`Could not write the trace viewer to ${target}: ${oneLine(errorMessage(error))}`, EXIT_USAGE);
	}
	out.stdout(`${target}\n`);
	return EXIT_OK;
}

/** One line naming the file: the SDK's read and JSON errors name it already, its format errors do not. */
function notATraceText(file: string, error: unknown): string {
	const text = oneLine(errorMessage(error)).replace(
		/Save traces with saveTrace\(\) or JSON\.stringify\(recorder\.toJSON\(\)\)\./,
		"Record one with settle --trace <file>.",
	);
	return error instanceof SettleError && !text.includes(file) ? `${file}: ${text}` : text;
}
