/** Boundary drafts: structural checks before the session previews them. */
import { SettleError } from "../errors.js";
import type { BoundaryEntryDraft } from "./types.js";

const DRAFT_TYPES = new Set(["custom", "custom_message", "context_edit", "compaction"]);

function invalid(message: string): SettleError {
	return new SettleError("INVALID_ARGUMENT", message);
}

function isContent(value: unknown): boolean {
	return typeof value === "string" || Array.isArray(value);
}

/**
 * Throws a `SettleError` (`INVALID_ARGUMENT`) saying which draft is malformed and how, e.g.
 * `entries[1] (context_edit): targetId must be a non-empty string`. Returns normally for a
 * well-formed list (whether ids exist is for the session's preview to decide).
 *
 * @example
 * ```ts
 * validateBoundaryEntries([{ type: "custom", customType: "checkpoint", data: { step: 2 } }]); // ok
 * ```
 */
export function validateBoundaryEntries(entries: unknown): asserts entries is BoundaryEntryDraft[] {
	if (!Array.isArray(entries)) throw invalid("entries must be an array of entry drafts");
	entries.forEach((draft: unknown, index) => {
		const at = `entries[${index}]`;
		if (!draft || typeof draft !== "object") throw invalid(`${at} must be an object with a type`);
		const d = draft as Record<string, unknown>;
		if (typeof d.type !== "string" || !DRAFT_TYPES.has(d.type)) {
			throw invalid(
				`${at}: type must be one of custom, custom_message, context_edit, compaction (got ${JSON.stringify(d.type)})`,
			);
		}
		const fail = (problem: string) => {
			throw invalid(`${at} (${d.type}): ${problem}`);
		};
		switch (d.type) {
			case "custom":
				if (typeof d.customType !== "string" || d.customType.length === 0)
					fail("customType must be a non-empty string");
				break;
			case "custom_message":
				if (typeof d.customType !== "string" || d.customType.length === 0)
					fail("customType must be a non-empty string");
				if (!isContent(d.content)) fail("content must be a string or an array of text/image blocks");
				if (typeof d.display !== "boolean") fail("display must be a boolean");
				break;
			case "context_edit": {
				if (typeof d.targetId !== "string" || d.targetId.length === 0) fail("targetId must be a non-empty string");
				const replacement = d.replacement as { content?: unknown } | null | undefined;
				if (replacement !== null && (typeof replacement !== "object" || !isContent(replacement?.content))) {
					fail("replacement must be null (omit the target) or { content }");
				}
				break;
			}
			case "compaction":
				if (typeof d.summary !== "string") fail("summary must be a string");
				if (
					d.firstKeptEntryId !== null &&
					(typeof d.firstKeptEntryId !== "string" || d.firstKeptEntryId.length === 0)
				) {
					fail("firstKeptEntryId must be an entry id or null");
				}
				break;
		}
	});
}
