/**
 * The extension UI of `settle --rpc`, pi's protocol: dialogs (`select`, `confirm`, `input`,
 * `editor`) are `extension_ui_request` lines the host answers with
 * `{"type":"extension_ui_response","id",…}`; notifications, statuses, widgets, the title and the
 * editor text are fire-and-forget requests. What needs a terminal (custom components, themes) is
 * answered as pi's RPC mode does.
 */

import type { ExtensionUIContext, ExtensionUIDialogOptions } from "../extensions/types.js";
import { plainTheme } from "../extensions/ui.js";
import { loadCrypto } from "../lazy-deps.js";

/** A host's answer to a dialog. */
export type RpcUIResponse = { type: "extension_ui_response"; id: string } & (
	| { value: string }
	| { confirmed: boolean }
	| { cancelled: true }
	| Record<string, never>
);

/** The RPC UI context plus the hook the command loop feeds responses into. */
export interface RpcUIContext extends ExtensionUIContext {
	/** Resolves the dialog `response.id` names. Returns false when no dialog waits for that id. */
	answer(response: RpcUIResponse): boolean;
	/**
	 * Resolves every open dialog with its default, and every later one at once: the host went away
	 * (stdin ended), so nobody can answer a dialog a command or a `session_shutdown` handler opens next.
	 */
	cancelAll(): void;
	/**
	 * Resolves the dialogs open now with their defaults, each named on the warn line with why: the
	 * session whose extensions opened them is being `replaced`, or settle is `ending` it (a signal),
	 * so an answer could only reach a stale context.
	 */
	dismissOpen(why: "replaced" | "ending"): void;
}

/** What `settle --rpc` writes on stderr for a `ctx.ui.custom()` call (pi#9951, percho#36). */
export const RPC_CUSTOM_WARNING =
	'[warning] ctx.ui.custom() needs a terminal: under --rpc it resolves undefined at once and its component is never built (check ctx.mode === "tui" first)';

/**
 * Creates the RPC UI context; `write` sends one protocol object as a line, `warn` (optional) gets a
 * line for what cannot travel ({@link RPC_CUSTOM_WARNING}).
 *
 * @example
 * ```ts
 * const ui = createRpcUIContext((value) => process.stdout.write(`${JSON.stringify(value)}\n`));
 * await session.bindExtensions({ mode: "rpc", uiContext: ui });
 * ```
 */
export function createRpcUIContext(write: (value: unknown) => void, warn?: (line: string) => void): RpcUIContext {
	const pending = new Map<
		string,
		{ finish: (response: RpcUIResponse | undefined) => void; method: string; title: unknown }
	>();
	// Every id sent: a late answer to one of them is dropped quietly (its dialog timed out), an id
	// never sent is a host bug worth a reply (pilish#80: the host rewrote the id, the dialog waited).
	const sent = new Set<string>();
	let closed = false;

	const dialog = <T>(
		request: { method: string } & Record<string, unknown>,
		fallback: T,
		parse: (response: RpcUIResponse) => T,
		options?: ExtensionUIDialogOptions,
	): Promise<T> => {
		if (closed || options?.signal?.aborted) return Promise.resolve(fallback);
		const id = loadCrypto().randomUUID();
		return new Promise<T>((resolve) => {
			let timer: ReturnType<typeof setTimeout> | undefined;
			const finish = (response: RpcUIResponse | undefined) => {
				if (timer) clearTimeout(timer);
				options?.signal?.removeEventListener("abort", onAbort);
				pending.delete(id);
				resolve(response && !("cancelled" in response && response.cancelled) ? parse(response) : fallback);
			};
			const onAbort = () => finish(undefined);
			options?.signal?.addEventListener("abort", onAbort, { once: true });
			if (options?.timeout) timer = setTimeout(() => finish(undefined), options.timeout);
			pending.set(id, { finish, method: request.method, title: request.title });
			sent.add(id);
			write({ type: "extension_ui_request", id, ...request });
		});
	};
	const text = (response: RpcUIResponse) =>
		"value" in response && typeof response.value === "string" ? response.value : undefined;
	const fireAndForget = (request: Record<string, unknown>) =>
		write({ type: "extension_ui_request", id: loadCrypto().randomUUID(), ...request });

	const ui: RpcUIContext = {
		answer(response) {
			const open = pending.get(response.id);
			if (!open) {
				if (!sent.has(response.id))
					write({
						...(typeof response.id === "string" || typeof response.id === "number" ? { id: response.id } : {}),
						type: "response",
						command: "extension_ui_response",
						success: false,
						error: unknownDialogError(response.id, [...pending.keys()]),
					});
				return false;
			}
			const misfit = misfitAnswer(open.method, response);
			// pi reads a misshapen answer as the default without a word (PiDeck#126: every "yes" a denial);
			// the host is told what to send, the dialog still ends with its default.
			if (misfit)
				write({ id: response.id, type: "response", command: "extension_ui_response", success: false, error: misfit });
			open.finish(misfit ? undefined : response);
			return true;
		},
		cancelAll() {
			closed = true;
			for (const { finish } of [...pending.values()]) finish(undefined);
		},
		dismissOpen(why) {
			const reason = why === "replaced" ? "the session it belongs to was replaced" : "settle is ending its session";
			for (const [id, { finish, method, title }] of [...pending]) {
				warn?.(`[warning] the "${method}" dialog ${id} (${JSON.stringify(title)}) ended with its default: ${reason}`);
				finish(undefined);
			}
		},
		select: (title, options, opts) =>
			dialog({ method: "select", title, options, timeout: opts?.timeout }, undefined, text, opts),
		confirm: (title, message, opts) =>
			dialog(
				{ method: "confirm", title, message, timeout: opts?.timeout },
				false,
				(response) => "confirmed" in response && response.confirmed === true,
				opts,
			),
		input: (title, placeholder, opts) =>
			dialog({ method: "input", title, placeholder, timeout: opts?.timeout }, undefined, text, opts),
		editor: (title, prefill, opts) =>
			dialog({ method: "editor", title, prefill, timeout: opts?.timeout }, undefined, text, opts),
		notify(message, type) {
			fireAndForget({ method: "notify", message, notifyType: type });
		},
		onTerminalInput: () => () => {},
		setStatus(key, statusText) {
			fireAndForget({ method: "setStatus", statusKey: key, statusText });
		},
		setWorkingMessage: () => {},
		setWorkingVisible: () => {},
		setWorkingIndicator: () => {},
		setHiddenThinkingLabel: () => {},
		setWidget(key, content, options) {
			// Lines travel; component factories need a terminal.
			if (content === undefined || Array.isArray(content)) {
				fireAndForget({
					method: "setWidget",
					widgetKey: key,
					widgetLines: content,
					widgetPlacement: options?.placement,
				});
			}
		},
		setFooter: () => {},
		setHeader: () => {},
		setTitle(title) {
			fireAndForget({ method: "setTitle", title });
		},
		// As pi: nothing to render into. Said on stderr, or a waiting extension looks hung for no reason.
		custom: async <T>() => {
			warn?.(RPC_CUSTOM_WARNING);
			return undefined as T;
		},
		pasteToEditor(pasted) {
			ui.setEditorText(pasted);
		},
		setEditorText(editorText) {
			fireAndForget({ method: "set_editor_text", text: editorText });
		},
		// Synchronous: the host keeps the editor text.
		getEditorText: () => "",
		addAutocompleteProvider: () => {},
		setEditorComponent: () => {},
		getEditorComponent: () => undefined,
		theme: plainTheme,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "Theme switching not supported in RPC mode" }),
		getToolsExpanded: () => false,
		setToolsExpanded: () => {},
	};
	return ui;
}

/**
 * Why `response` cannot answer a `method` dialog, or undefined when it can: a `confirm` takes
 * `confirmed` (a boolean), the others `value` (a string); `cancelled: true` ends any of them.
 */
function misfitAnswer(method: string, response: RpcUIResponse): string | undefined {
	const fields = response as Record<string, unknown>;
	if (fields.cancelled === true) return undefined;
	const field = method === "confirm" ? "confirmed" : "value";
	const kind = method === "confirm" ? "boolean" : "string";
	if (typeof fields[field] === kind) return undefined;
	const { type: _type, id: _id, ...given } = fields;
	return `a "${method}" dialog is answered with "${field}" (a ${kind}) or "cancelled": true; got ${JSON.stringify(given)}: the dialog ended with its default`;
}

/** Why an answer's `id` matches no dialog ever sent, with the ids of the dialogs still open. */
function unknownDialogError(id: unknown, open: string[]): string {
	const named = typeof id === "string" ? `no dialog has the id ${JSON.stringify(id)}` : `the answer has no string "id"`;
	const waiting = open.length
		? `open dialogs: ${open.map((key) => JSON.stringify(key)).join(", ")}`
		: "no dialog is open";
	return `${named}: answer with the "id" of its extension_ui_request, as sent (${waiting})`;
}
