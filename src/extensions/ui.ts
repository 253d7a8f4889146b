/**
 * The UI context of hosts without a terminal UI (print, json, rpc without a client UI, SDK use).
 * Answers match pi's print mode: dialogs resolve to `undefined` and `confirm` to `false`. A session
 * whose host binds no UI uses one that also reports each notification and dialog as a session
 * event (`extension_notify`, `extension_dialog`).
 */
import type {
	ExtensionTheme,
	ExtensionUIContext,
	NotificationType,
	UIComponentFactory,
	WidgetPlacement,
} from "./types.js";

/** One `ctx.ui.notify` call. */
export interface UINotification {
	message: string;
	type: NotificationType;
}

/** One dialog an extension opened (answered with the headless default). */
export interface UIDialogRequest {
	kind: "select" | "confirm" | "input" | "editor" | "custom";
	title?: string;
}

/** Options of {@link createHeadlessUIContext}. */
export interface HeadlessUIOptions {
	/**
	 * Receives every notification (e.g. to print it to stderr or forward it over RPC), and the path
	 * of the extension that sent it (`<inline:N>` for an inline factory, as
	 * `ExtensionError.extensionPath`): undefined only for a call on this UI itself rather than on an
	 * extension's `ctx.ui` ({@link HeadlessUIContext.forExtension}).
	 */
	onNotify?: (notification: UINotification, extensionPath: string | undefined) => void;
	/**
	 * Receives every dialog an extension opens, as it is answered with the headless default
	 * (`undefined`; `false` for `confirm`): e.g. to log that a question went unasked. `extensionPath`
	 * as in `onNotify`.
	 */
	onDialog?: (request: UIDialogRequest, extensionPath: string | undefined) => void;
	/** How many notifications and dialog requests are kept (default 100, oldest dropped first). */
	historyLimit?: number;
}

/**
 * A UI context that records what extensions asked for. `hasUI` is false for a runner using it.
 * Recorded state is readable for tests and hosts: `notifications`, `dialogs`, `statuses`,
 * `widgets`, `title`, `editorText`, `workingMessage`.
 */
export interface HeadlessUIContext extends ExtensionUIContext {
	readonly headless: true;
	readonly notifications: readonly UINotification[];
	readonly dialogs: readonly UIDialogRequest[];
	readonly statuses: ReadonlyMap<string, string>;
	readonly widgets: ReadonlyMap<string, { content: string[] | UIComponentFactory; placement: WidgetPlacement }>;
	readonly title: string | undefined;
	readonly workingMessage: string | undefined;
	/**
	 * This UI as the extension at `extensionPath` sees it: the same state (statuses, widgets, title,
	 * editor text, the recorded notifications and dialogs, the answers), but `onNotify` and
	 * `onDialog` get `extensionPath` with each of its notifications and dialogs. Each extension's
	 * `ctx.ui` is its view; one view per path.
	 *
	 * @example
	 * ```ts
	 * const from: (string | undefined)[] = [];
	 * const ui = createHeadlessUIContext({ onNotify: (_notification, extensionPath) => from.push(extensionPath) });
	 * ui.forExtension("/repo/.settle/extensions/deploy.ts").notify("Deployed.");
	 * ui.notify("From the host.");
	 * from; // ["/repo/.settle/extensions/deploy.ts", undefined]
	 * ui.notifications.length; // 2
	 * ```
	 */
	forExtension(extensionPath: string): HeadlessUIContext;
}

/**
 * The UIs {@link createHeadlessUIContext} made (and their views): only these are viewed per
 * extension. A host's copy with its own members (`{ ...headless, notify }`) is the host's UI, passed
 * to every extension as it is, so its `notify` still gets the calls.
 */
const madeHere = new WeakSet<object>();

/** A theme that leaves text unstyled. */
export const plainTheme: ExtensionTheme = Object.freeze({
	name: "plain",
	fg: (_color: string, text: string) => text,
	bg: (_color: string, text: string) => text,
	bold: (text: string) => text,
	italic: (text: string) => text,
	underline: (text: string) => text,
	strikethrough: (text: string) => text,
	inverse: (text: string) => text,
});

/**
 * Creates a headless UI context.
 *
 * @example
 * ```ts
 * const ui = createHeadlessUIContext({ onNotify: ({ message, type }) => console.error(`[${type}] ${message}`) });
 * runner.setUIContext(ui);
 * ```
 */
export function createHeadlessUIContext(options: HeadlessUIOptions = {}): HeadlessUIContext {
	const limit = Math.max(0, options.historyLimit ?? 100);
	const notifications: UINotification[] = [];
	const dialogs: UIDialogRequest[] = [];
	const statuses = new Map<string, string>();
	const widgets = new Map<string, { content: string[] | UIComponentFactory; placement: WidgetPlacement }>();
	let title: string | undefined;
	let workingMessage: string | undefined;
	let editorText = "";
	let toolsExpanded = false;
	let editorComponent: UIComponentFactory | undefined;

	const keep = <T>(list: T[], item: T) => {
		list.push(item);
		if (list.length > limit) list.splice(0, list.length - limit);
	};
	const views = new Map<string, HeadlessUIContext>();
	const forExtension = (extensionPath: string): HeadlessUIContext => {
		let view = views.get(extensionPath);
		if (!view) {
			view = build(extensionPath);
			views.set(extensionPath, view);
		}
		return view;
	};

	// Every view shares the state above; only who is named on a notification or dialog differs.
	const build = (extensionPath: string | undefined): HeadlessUIContext => {
		const ui = members(extensionPath);
		madeHere.add(ui);
		return ui;
	};
	const members = (extensionPath: string | undefined): HeadlessUIContext => {
		const dialog = (kind: UIDialogRequest["kind"], dialogTitle?: string) => {
			const request: UIDialogRequest = dialogTitle === undefined ? { kind } : { kind, title: dialogTitle };
			keep(dialogs, request);
			options.onDialog?.(request, extensionPath);
		};
		return {
			headless: true,
			forExtension,
			get notifications() {
				return notifications;
			},
			get dialogs() {
				return dialogs;
			},
			get statuses() {
				return statuses;
			},
			get widgets() {
				return widgets;
			},
			get title() {
				return title;
			},
			get workingMessage() {
				return workingMessage;
			},
			async select(dialogTitle) {
				dialog("select", dialogTitle);
				return undefined;
			},
			async confirm(dialogTitle) {
				dialog("confirm", dialogTitle);
				return false;
			},
			async input(dialogTitle) {
				dialog("input", dialogTitle);
				return undefined;
			},
			async editor(dialogTitle) {
				dialog("editor", dialogTitle);
				return undefined;
			},
			async custom<T>() {
				dialog("custom");
				return undefined as T;
			},
			notify(message, type = "info") {
				const notification: UINotification = { message, type };
				keep(notifications, notification);
				options.onNotify?.(notification, extensionPath);
			},
			onTerminalInput: () => () => {},
			setStatus(key, text) {
				if (text === undefined) statuses.delete(key);
				else statuses.set(key, text);
			},
			setWorkingMessage(message) {
				workingMessage = message;
			},
			setWorkingVisible: () => {},
			setWorkingIndicator: () => {},
			setHiddenThinkingLabel: () => {},
			setWidget(key, content, widgetOptions) {
				if (content === undefined) widgets.delete(key);
				else widgets.set(key, { content, placement: widgetOptions?.placement ?? "aboveEditor" });
			},
			setFooter: () => {},
			setHeader: () => {},
			setTitle(value) {
				title = value;
			},
			pasteToEditor(text) {
				editorText += text;
			},
			setEditorText(text) {
				editorText = text;
			},
			getEditorText: () => editorText,
			addAutocompleteProvider: () => {},
			setEditorComponent(factory) {
				editorComponent = factory;
			},
			getEditorComponent: () => editorComponent,
			theme: plainTheme,
			getAllThemes: () => [],
			getTheme: () => undefined,
			setTheme: () => ({ success: false, error: "UI not available" }),
			getToolsExpanded: () => toolsExpanded,
			setToolsExpanded(expanded) {
				toolsExpanded = expanded;
			},
		};
	};
	return build(undefined);
}

/**
 * Whether a UI context is the headless one (so `ctx.hasUI` is false): one
 * {@link createHeadlessUIContext} made, or a view of it. As pi's `hasUI()` (the no-op context
 * itself, by identity), a host's copy (`{ ...headless, confirm }`, a `Proxy`) is the host's UI:
 * it answers the dialogs, so `hasUI` is true (pi#9275).
 *
 * @example
 * ```ts
 * const headless = createHeadlessUIContext();
 * isHeadlessUIContext(headless); // true
 * isHeadlessUIContext({ ...headless, confirm: async () => true }); // false
 * ```
 */
export function isHeadlessUIContext(ui: ExtensionUIContext): boolean {
	return madeHere.has(ui);
}

/**
 * The UI an extension's `ctx.ui` is: a headless UI's view for that extension (its notifications
 * and dialogs name it), any other UI — a host's own, or a host's copy of a headless one — as it is.
 */
export function uiForExtension(ui: ExtensionUIContext, extensionPath: string): ExtensionUIContext {
	return madeHere.has(ui) ? (ui as HeadlessUIContext).forExtension(extensionPath) : ui;
}
