/**
 * Which files the summarized span read or changed, from `read` / `write` / `edit` tool calls.
 */
import type { AgentMessage } from "../llm/types.js";
import type { FileOperationDetails } from "../store/entries.js";
import type { FileOperations } from "./types.js";

/**
 * An empty set of file operations.
 *
 * @example
 * ```ts
 * const fileOps = createFileOperations(); // { read: Set {}, written: Set {}, edited: Set {} }
 * for (const message of messages) collectFileOperations(message, fileOps);
 * ```
 */
export function createFileOperations(): FileOperations {
	return { read: new Set(), written: new Set(), edited: new Set() };
}

/**
 * Adds the paths of an assistant message's `read` / `write` / `edit` tool calls. Other messages: no-op.
 *
 * @example
 * ```ts
 * const fileOps = createFileOperations();
 * for (const message of messages) collectFileOperations(message, fileOps);
 * [...fileOps.edited]; // paths passed to the edit tool
 * ```
 */
export function collectFileOperations(message: AgentMessage, fileOps: FileOperations): void {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return;
	for (const block of message.content) {
		if (block?.type !== "toolCall") continue;
		const path = block.arguments?.path;
		if (typeof path !== "string" || path === "") continue;
		if (block.name === "read") fileOps.read.add(path);
		else if (block.name === "write") fileOps.written.add(path);
		else if (block.name === "edit") fileOps.edited.add(path);
	}
}

/**
 * Carries the file lists of an earlier summary's `details` forward (only summaries Settle/pi made:
 * an extension's details may have any shape, which is ignored). Modified files count as edited. Never throws.
 *
 * @example
 * ```ts
 * const fileOps = createFileOperations();
 * addRecordedFileLists({ readFiles: ["a.ts"], modifiedFiles: ["b.ts"] }, fileOps); // read: a.ts, edited: b.ts
 * ```
 */
export function addRecordedFileLists(details: unknown, fileOps: FileOperations): void {
	if (typeof details !== "object" || details === null) return;
	const { readFiles, modifiedFiles } = details as Partial<Record<keyof FileOperationDetails, unknown>>;
	if (Array.isArray(readFiles)) for (const file of readFiles) if (typeof file === "string") fileOps.read.add(file);
	if (Array.isArray(modifiedFiles)) {
		for (const file of modifiedFiles) if (typeof file === "string") fileOps.edited.add(file);
	}
}

/**
 * Sorted lists: files only read, and files written or edited.
 *
 * @example
 * ```ts
 * const fileOps = createFileOperations();
 * for (const message of messages) collectFileOperations(message, fileOps);
 * computeFileLists(fileOps); // { readFiles: ["a.ts"], modifiedFiles: ["b.ts"] }
 * ```
 */
export function computeFileLists(fileOps: FileOperations): FileOperationDetails {
	const modified = new Set([...fileOps.edited, ...fileOps.written]);
	return {
		readFiles: [...fileOps.read].filter((file) => !modified.has(file)).sort(),
		modifiedFiles: [...modified].sort(),
	};
}

/**
 * A summary without the `<read-files>` / `<modified-files>` blocks {@link formatFileOperations}
 * appended to it. The lists travel in the entry's `details` and are appended anew to each summary,
 * so the previous summary's copy would be sent to the summarizer and appended twice (pi#9945: a
 * summary of 528K characters, 510K of them file paths). Must not throw.
 *
 * @example
 * ```ts
 * withoutFileLists("## Goal\nship\n\n<read-files>\na.ts\n</read-files>"); // "## Goal\nship"
 * ```
 */
export function withoutFileLists(summary: string): string {
	return summary.replace(/\n*<(read-files|modified-files)>\n[\s\S]*?\n<\/\1>/g, "");
}

/**
 * The `<read-files>` / `<modified-files>` blocks appended to a summary ("" when both are empty).
 *
 * @example
 * ```ts
 * formatFileOperations({ readFiles: ["a.ts"], modifiedFiles: [] }); // "\n\n<read-files>\na.ts\n</read-files>"
 * ```
 */
export function formatFileOperations({ readFiles, modifiedFiles }: FileOperationDetails): string {
	const sections: string[] = [];
	if (readFiles.length > 0) sections.push(`<read-files>\n${readFiles.join("\n")}\n</read-files>`);
	if (modifiedFiles.length > 0) sections.push(`<modified-files>\n${modifiedFiles.join("\n")}\n</modified-files>`);
	return sections.length === 0 ? "" : `\n\n${sections.join("\n\n")}`;
}
