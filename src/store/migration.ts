/** Format migrations: v1 (no ids) → v2 (id/parentId tree) → v3 (`hookMessage` role renamed `custom`). */
import { CURRENT_SESSION_VERSION } from "./entries.js";
import { generateEntryId } from "./ids.js";

type Mutable = Record<string, unknown>;

function migrateV1ToV2(entries: Mutable[]): void {
	const ids = new Set<string>();
	let previous: string | null = null;
	for (const entry of entries) {
		if (entry.type === "session") {
			entry.version = 2;
			continue;
		}
		const id = generateEntryId(ids);
		ids.add(id);
		entry.id = id;
		entry.parentId = previous;
		previous = id;
	}
	// v1 compactions point at the first kept entry by index (into the list including the header).
	for (const entry of entries) {
		if (entry.type !== "compaction" || typeof entry.firstKeptEntryIndex !== "number") continue;
		const target = entries[entry.firstKeptEntryIndex];
		if (target && target.type !== "session") entry.firstKeptEntryId = target.id;
		delete entry.firstKeptEntryIndex;
	}
}

function migrateV2ToV3(entries: Mutable[]): void {
	for (const entry of entries) {
		if (entry.type === "session") {
			entry.version = 3;
			continue;
		}
		const message = entry.type === "message" ? (entry.message as Mutable | undefined) : undefined;
		if (message && message.role === "hookMessage") message.role = "custom";
	}
}

/**
 * Brings `[header, ...entries]` to the current format version, in place. Idempotent: returns false
 * (and changes nothing) when the header is already at version 3 or newer.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 *
 * const lines = parseSessionEntries(readFileSync(sessionManager.getSessionFile()!, "utf8"));
 * if (migrateSessionEntries(lines)) console.log("upgraded to v3");
 * ```
 */
export function migrateSessionEntries(entries: readonly object[]): boolean {
	const list = entries as Mutable[];
	const header = list.find((e) => e.type === "session");
	const version = typeof header?.version === "number" ? header.version : 1;
	if (version >= CURRENT_SESSION_VERSION) return false;
	if (version < 2) migrateV1ToV2(list);
	if (version < 3) migrateV2ToV3(list);
	return true;
}
