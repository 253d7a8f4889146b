/**
 * A headless UI whose notifications and dialogs are reported as session events
 * (`extension_notify`, `extension_dialog`, each with the `extensionPath` of the extension that
 * called `ctx.ui`): a session's own UI until the host binds one, and `settle --json`'s.
 */
import { createHeadlessUIContext, type HeadlessUIContext } from "../extensions/ui.js";
import type { AgentSessionEvent } from "./events.js";

export type ExtensionUIEvent = Extract<AgentSessionEvent, { type: "extension_notify" | "extension_dialog" }>;

/** A headless UI that hands `emit` an event for each notification and each dialog (answered at once). */
export function createEventingUIContext(emit: (event: ExtensionUIEvent) => void): HeadlessUIContext {
	return createHeadlessUIContext({
		onNotify: ({ message, type }, extensionPath) =>
			emit({
				type: "extension_notify",
				message,
				notifyType: type,
				...(extensionPath === undefined ? {} : { extensionPath }),
			}),
		onDialog: ({ kind, title }, extensionPath) =>
			emit({
				type: "extension_dialog",
				kind,
				...(title === undefined ? {} : { title }),
				answer: kind === "confirm" ? false : undefined,
				...(extensionPath === undefined ? {} : { extensionPath }),
			}),
	});
}
