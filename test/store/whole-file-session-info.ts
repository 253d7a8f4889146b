/**
 * Settle's `buildSessionInfo` before it read files a block at a time: the whole file read, split
 * and parsed. The reference of test/store/session-info.property.test.ts and the "before" of
 * bench/scale.ts's list timing.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SessionHeader, SessionInfo } from "../../src/store/entries.js";

function referenceMessageText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const texts: string[] = [];
	for (const block of content) {
		if (block && typeof block === "object" && block.type === "text" && typeof block.text === "string") {
			texts.push(block.text);
		}
	}
	return texts.join(" ");
}

export async function wholeFileSessionInfo(path: string): Promise<SessionInfo | null> {
	try {
		const [raw, stats] = await Promise.all([readFile(path, "utf8"), stat(path)]);
		const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
		let header: SessionHeader | null = null;
		let messageCount = 0;
		let firstMessage = "";
		let name: string | undefined;
		let lastActivity: number | undefined;
		const all: string[] = [];
		for (const line of text.split("\n")) {
			if (!line.trim()) continue;
			let entry: Record<string, unknown>;
			try {
				entry = JSON.parse(line);
			} catch {
				continue;
			}
			if (!entry || typeof entry !== "object") continue;
			if (!header) {
				if (entry.type !== "session" || typeof entry.id !== "string") return null;
				header = entry as unknown as SessionHeader;
				continue;
			}
			if (entry.type === "session_info") name = (typeof entry.name === "string" && entry.name.trim()) || undefined;
			if (entry.type !== "message") continue;
			messageCount++;
			const message = entry.message as Record<string, unknown> | undefined;
			if (!message || (message.role !== "user" && message.role !== "assistant") || !("content" in message)) continue;
			const at =
				typeof message.timestamp === "number" ? message.timestamp : new Date(String(entry.timestamp)).getTime();
			if (!Number.isNaN(at)) lastActivity = Math.max(lastActivity ?? 0, at);
			const textContent = referenceMessageText(message.content);
			if (!textContent) continue;
			all.push(textContent);
			if (!firstMessage && message.role === "user") firstMessage = textContent;
		}
		if (!header) return null;
		const headerTime = new Date(header.timestamp).getTime();
		// A fork's creation counts as activity (its messages are copies with the original's times: codex#39553).
		const forkedAt = header.parentSession && !Number.isNaN(headerTime) ? headerTime : 0;
		const modified =
			lastActivity !== undefined && lastActivity > 0
				? new Date(Math.max(lastActivity, forkedAt))
				: Number.isNaN(headerTime)
					? stats.mtime
					: new Date(headerTime);
		return {
			path,
			id: header.id,
			cwd: typeof header.cwd === "string" ? header.cwd : "",
			name,
			parentSessionPath: header.parentSession,
			created: new Date(header.timestamp),
			modified,
			messageCount,
			firstMessage: firstMessage || "(no messages)",
			allMessagesText: all.join(" "),
		};
	} catch {
		return null;
	}
}

/** `SessionManager.listAll(dir)` as it was: every file read whole, ten at a time, newest first. */
export async function listAllWholeFiles(dir: string): Promise<SessionInfo[]> {
	const files = (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).map((name) => join(dir, name));
	const infos: (SessionInfo | null)[] = new Array(files.length);
	let next = 0;
	const worker = async () => {
		while (next < files.length) {
			const i = next++;
			infos[i] = await wholeFileSessionInfo(files[i]!);
		}
	};
	await Promise.all(Array.from({ length: Math.min(10, files.length) }, worker));
	return infos
		.filter((info): info is SessionInfo => info !== null)
		.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}
