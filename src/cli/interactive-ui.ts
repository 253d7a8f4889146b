/**
 * The extension UI of `settle -i`: dialogs (`confirm`, `select`, `input`, `editor`) are questions
 * the next typed line answers; `notify` prints a line; `setEditorText` / `pasteToEditor` fill the
 * input line in a terminal; a status or a text widget is printed as a dim line each time it
 * changes, `[key] text` (`[key] (cleared)` when removed), and the title goes to the terminal's
 * title bar; what needs a full terminal UI (component widgets, footers, custom components, themes)
 * is a no-op, as in print mode.
 */
import type { ExtensionUIContext, ExtensionUIDialogOptions, NotificationType } from "../extensions/types.js";
import { plainTheme } from "../extensions/ui.js";
import { outputLineSafe } from "./interactive-render.js";

interface Question {
	text: string;
	resolve(answer: string | undefined): void;
}

/**
 * Questions waiting for a typed line, answered first come, first served. Only the oldest is shown;
 * the next one is shown once it is answered. After {@link close} every question is answered
 * `undefined` at once (nobody can type any more).
 */
export class LineQuestions {
	private readonly queue: Question[] = [];
	private closed = false;

	/** `show` displays a question (its text ends where the answer is typed). */
	constructor(private readonly show: (text: string) => void) {}

	/** Whether a question waits for a line. */
	get pending(): boolean {
		return this.queue.length > 0;
	}

	/** Asks `text`; resolves with the typed line, or undefined when cancelled, aborted or timed out. */
	ask(text: string, options: ExtensionUIDialogOptions = {}): Promise<string | undefined> {
		if (this.closed || options.signal?.aborted) return Promise.resolve(undefined);
		return new Promise((resolve) => {
			let timer: ReturnType<typeof setTimeout> | undefined;
			const question: Question = {
				text,
				resolve: (answer) => {
					if (timer) clearTimeout(timer);
					options.signal?.removeEventListener("abort", onAbort);
					resolve(answer);
				},
			};
			const onAbort = () => this.remove(question);
			options.signal?.addEventListener("abort", onAbort, { once: true });
			if (options.timeout) timer = setTimeout(onAbort, options.timeout);
			this.queue.push(question);
			if (this.queue.length === 1) this.show(text);
		});
	}

	/** Gives `line` to the oldest question. Returns false when none waits. */
	answer(line: string): boolean {
		const question = this.queue.shift();
		if (!question) return false;
		question.resolve(line);
		this.showNext();
		return true;
	}

	/** Cancels the oldest question (Ctrl+C). Returns false when none waits. */
	cancelCurrent(): boolean {
		const question = this.queue.shift();
		if (!question) return false;
		question.resolve(undefined);
		this.showNext();
		return true;
	}

	/** Shows the oldest question again (after other output pushed it away). */
	redisplay(): void {
		this.showNext();
	}

	/** Cancels every question, and every later one at once. */
	close(): void {
		this.closed = true;
		for (const question of this.queue.splice(0)) question.resolve(undefined);
	}

	private remove(question: Question): void {
		const index = this.queue.indexOf(question);
		if (index === -1) return;
		this.queue.splice(index, 1);
		question.resolve(undefined);
		if (index === 0) this.showNext();
	}

	private showNext(): void {
		const next = this.queue[0];
		if (next) this.show(next.text);
	}
}

/** Whether a typed answer means yes (`y`, `yes`, any case). */
export function isYes(answer: string | undefined): boolean {
	return answer !== undefined && /^\s*y(es)?\s*$/i.test(answer);
}

/**
 * The option a typed answer picks: its number (1-based) or its exact text; undefined otherwise.
 *
 * @example
 * ```ts
 * pickOption(["small", "large"], "2"); // "large"
 * ```
 */
export function pickOption(options: readonly string[], answer: string | undefined): string | undefined {
	if (answer === undefined) return undefined;
	const trimmed = answer.trim();
	if (/^\d+$/.test(trimmed)) return options[Number(trimmed) - 1];
	return options.find((option) => option === trimmed);
}

/**
 * The chat's input line, as `ctx.ui.setEditorText` / `pasteToEditor` / `getEditorText` reach it (in
 * a terminal: the line being typed at the prompt).
 */
export interface InteractiveEditor {
	/** Replaces the input line's text. */
	set(text: string): void;
	/** Inserts text where the cursor is. */
	paste(text: string): void;
	/** The input line's text. */
	get(): string;
}

/** How {@link createInteractiveUIContext} prints a line: a notification's type, or `status` (dim). */
export type InteractiveLineKind = NotificationType | "status";

/**
 * Creates the interactive UI context: dialogs go to `questions`, notifications, option lists and
 * changed statuses and text widgets to `print` (one line each); the editor calls go to `editor`
 * (without one, a text kept for `getEditorText` only, as on a pipe, where nothing can be edited);
 * `setTitle` to `writeTitle` (leave it out where there is no terminal title to set).
 *
 * @example
 * ```ts
 * const questions = new LineQuestions((text) => process.stdout.write(text));
 * const ui = createInteractiveUIContext(questions, (line) => console.log(line));
 * ui.notify("hello"); // prints "[info] hello"
 * ui.setStatus("git", "main"); // prints "[git] main"
 * ```
 */
export function createInteractiveUIContext(
	questions: LineQuestions,
	printLine: (line: string, kind?: InteractiveLineKind) => void,
	editor?: InteractiveEditor,
	writeTitle?: (title: string) => void,
): ExtensionUIContext {
	// An extension's text reaches the terminal as tool output does: colour codes dropped, other
	// control characters made visible, so a title, an option or a notification cannot drive it.
	const print = (line: string, kind?: InteractiveLineKind) => printLine(safe(line), kind);
	const ask = (text: string, opts?: ExtensionUIDialogOptions) => questions.ask(safe(text), opts);
	let editorText = "";
	let toolsExpanded = false;
	// What each status and text widget last printed: an unchanged one is not printed again (an
	// extension refreshing its status every turn would otherwise fill the chat).
	const shown = new Map<string, string>();
	const show = (kind: "status" | "widget", key: string, lines: readonly string[] | undefined) => {
		const id = `${kind} ${key}`;
		const last = shown.get(id);
		if (lines === undefined) {
			if (last === undefined) return;
			shown.delete(id);
			print(`[${key}] (cleared)`, "status");
			return;
		}
		const text = lines.join("\n");
		if (text === last) return;
		shown.set(id, text);
		// Each printed line starts with its label: a status folded to one line (as pi's footer
		// shows it), a widget's lines split at their line breaks; made safe after the split, so a
		// carriage return redraws the text only, never the label.
		const printed = kind === "status" ? lines.map(foldedStatus) : lines.flatMap((line) => line.split("\n"));
		const label = `[${outputLineSafe(key)}]`;
		for (const line of printed.length > 0 ? printed : [""]) printLine(`${label} ${outputLineSafe(line)}`, "status");
	};
	const ui: ExtensionUIContext = {
		async select(title, options, opts) {
			print(title);
			// Nothing to pick: "Choose 1-0" would wait for an answer that can only cancel (pi's picker shows no row).
			if (options.length === 0) {
				print("No options to choose from: cancelled.", "warning");
				return undefined;
			}
			options.forEach((option, index) => {
				print(`  ${index + 1}. ${option}`);
			});
			const answer = await ask(`Choose 1-${options.length} (empty to cancel): `, opts);
			const picked = pickOption(options, answer);
			if (answer !== undefined && answer.trim() !== "" && picked === undefined) {
				print(`No option "${answer.trim()}": cancelled.`, "warning");
			}
			return picked;
		},
		async confirm(title, message, opts) {
			return isYes(await ask(`${title}${message ? `: ${message}` : ""} [y/N] `, opts));
		},
		async input(title, placeholder, opts) {
			const answer = await ask(`${title}${placeholder ? ` (${placeholder})` : ""}: `, opts);
			return answer;
		},
		async editor(title, prefill, opts) {
			// One line stands for the text; an empty line keeps the text given.
			const shown = prefill ? ` [${prefill.split("\n")[0]}${prefill.includes("\n") ? " …" : ""}]` : "";
			const answer = await ask(`${title}${shown}: `, opts);
			return answer === "" && prefill ? prefill : answer;
		},
		notify(message, type = "info") {
			// Made safe before the label is put in front: a carriage return in the message redraws
			// the message only, never the "[type]" label.
			printLine(`[${outputLineSafe(String(type))}] ${safe(String(message))}`, type);
		},
		onTerminalInput: () => () => {},
		setStatus(key, text) {
			show("status", key, text === undefined ? undefined : [text]);
		},
		setWorkingMessage: () => {},
		setWorkingVisible: () => {},
		setWorkingIndicator: () => {},
		setHiddenThinkingLabel: () => {},
		setWidget(key, content) {
			// A component factory needs the full terminal UI; string lines print as a status does.
			if (typeof content === "function") return;
			show("widget", key, content);
		},
		setFooter: () => {},
		setHeader: () => {},
		setTitle(title) {
			// Control characters dropped, so the title cannot end the escape early or add another.
			writeTitle?.([...title].filter((char) => !isControl(char)).join(""));
		},
		custom: async <T>() => undefined as T,
		pasteToEditor(text) {
			if (editor) editor.paste(text);
			else editorText += text;
		},
		setEditorText(text) {
			if (editor) editor.set(text);
			else editorText = text;
		},
		getEditorText: () => (editor ? editor.get() : editorText),
		addAutocompleteProvider: () => {},
		setEditorComponent: () => {},
		getEditorComponent: () => undefined,
		theme: plainTheme,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "Themes are not supported in settle's interactive mode" }),
		getToolsExpanded: () => toolsExpanded,
		setToolsExpanded(expanded) {
			toolsExpanded = expanded;
		},
	};
	return ui;
}

/** A C0 or C1 control character, or DEL. */
function isControl(char: string): boolean {
	const code = char.codePointAt(0) ?? 0;
	return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** A status's text as pi's footer shows it: line breaks and tabs folded into single spaces. */
function foldedStatus(text: string): string {
	return text
		.replace(/[\r\n\t]/g, " ")
		.replace(/ +/g, " ")
		.trim();
}

/** Each line of `text` made safe for a terminal (see {@link outputLineSafe}); the line breaks stay. */
function safe(text: string): string {
	return text.split("\n").map(outputLineSafe).join("\n");
}
