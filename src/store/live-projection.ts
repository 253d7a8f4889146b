/**
 * The projection of the current leaf, kept up to date as entries are appended so that
 * `buildSessionContext()` after an append costs O(new entries) plus a copy of the message array,
 * not a walk of the session. Moving the leaf (branch, reset) or appending a compaction drops it;
 * the next read rebuilds it from the path. A context edit only marks the flat message list for a
 * re-flatten (pointer copies, no path walk). Property tests check it against `buildSessionProjection`.
 */
import type { AgentMessage } from "../llm/types.js";
import type { ContextEditEntry, SessionContext, SessionEntry, SessionProjection } from "./entries.js";
import type { ChainContext } from "./entry-index.js";
import {
	buildSessionPath,
	contextEntriesOfPath,
	type ProjectedSessionEntry,
	projectContextEntry,
	pushContextMessages,
} from "./projection.js";

export class LiveProjection {
	/** Ids on the path root..leaf, computed on first use and then kept incrementally. */
	private pathIds: Set<string> | null = null;
	/** Per-entry view for `projection()`, built on first use and then kept incrementally. */
	private projected: ProjectedSessionEntry[] | null = null;

	/** Where the model in effect comes from (the last assistant message or model change): no object per message. */
	private modelProvider = "";
	private modelId = "";
	private hasModel = false;

	private constructor(
		public leafId: string | null,
		public thinkingLevel: SessionContext["thinkingLevel"],
		model: SessionContext["model"],
		private readonly contextEntries: SessionEntry[],
		private edits: Map<string, ContextEditEntry> | null,
		private flat: AgentMessage[] | null,
	) {
		if (model) this.setModel(model.provider, model.modelId);
	}

	private setModel(provider: string, modelId: string): void {
		this.hasModel = true;
		this.modelProvider = provider;
		this.modelId = modelId;
	}

	/**
	 * The projection of the last of `entries` when they form one chain without compactions or
	 * context edits and `context` was gathered along it (see `EntryIndex`): nothing to walk again.
	 */
	static ofChain(entries: readonly SessionEntry[], context: ChainContext): LiveProjection {
		const leafId = entries.length > 0 ? entries[entries.length - 1]!.id : null;
		return new LiveProjection(leafId, context.thinkingLevel, context.model, entries.slice(), null, context.messages);
	}

	/**
	 * Builds the projection of `leafId`. `linearPrefix` is how many entries from the start form one
	 * chain (each the child of the one before): a leaf inside it needs no walk through the index.
	 */
	static build(
		entries: readonly SessionEntry[],
		leafId: string | null,
		linearPrefix: number,
		byId: () => Map<string, SessionEntry>,
	): LiveProjection {
		// No leaf (a new session) or a leaf that ends the chain: no walk, and no id index to build for it.
		const path =
			leafId === null
				? []
				: linearPrefix > 0 && entries[linearPrefix - 1]!.id === leafId
					? entries.slice(0, linearPrefix)
					: buildSessionPath(entries, leafId, byId());
		// One pass for the settings, the latest compaction and whether there are edits at all.
		let thinkingLevel: SessionContext["thinkingLevel"] = "off";
		let model: SessionContext["model"] = null;
		let compactionIndex = -1;
		let hasEdits = false;
		for (let i = 0; i < path.length; i++) {
			const entry = path[i]!;
			switch (entry.type) {
				case "message":
					if (entry.message.role === "assistant") {
						model = { provider: entry.message.provider, modelId: entry.message.model };
					}
					break;
				case "thinking_level_change":
					thinkingLevel = entry.thinkingLevel;
					break;
				case "model_change":
					model = { provider: entry.provider, modelId: entry.modelId };
					break;
				case "compaction":
					compactionIndex = i;
					break;
				case "context_edit":
					hasEdits = true;
					break;
			}
		}
		const contextEntries = compactionIndex < 0 ? path : contextEntriesOfPath(path);
		let edits: Map<string, ContextEditEntry> | null = null;
		if (hasEdits) {
			for (const entry of contextEntries) {
				if (entry.type !== "context_edit") continue;
				if (!edits) edits = new Map();
				edits.set(entry.targetId, entry);
			}
		}
		return new LiveProjection(leafId, thinkingLevel, model, contextEntries, edits, null);
	}

	/**
	 * Applies an entry appended as a child of this leaf. Returns false when the entry needs a
	 * rebuild (a compaction reshapes the context); the caller then drops this projection.
	 */
	extend(entry: SessionEntry): boolean {
		if (entry.parentId !== this.leafId || entry.type === "compaction") return false;
		this.leafId = entry.id;
		this.pathIds?.add(entry.id);
		this.contextEntries.push(entry);
		switch (entry.type) {
			case "thinking_level_change":
				this.thinkingLevel = entry.thinkingLevel;
				break;
			case "model_change":
				this.setModel(entry.provider, entry.modelId);
				break;
			case "context_edit":
				if (!this.edits) this.edits = new Map();
				this.edits.set(entry.targetId, entry);
				this.flat = null;
				this.projected = null;
				return true;
			case "message":
				if (entry.message.role === "assistant") this.setModel(entry.message.provider, entry.message.model);
				break;
		}
		if (this.flat) pushContextMessages(entry, this.flat);
		if (this.projected) this.projected.push(projectedEntry(entry, undefined, false));
		return true;
	}

	/** Whether `id` is on the path root..leaf. */
	isOnPath(id: string, byId: Map<string, SessionEntry>): boolean {
		if (!this.pathIds) {
			const ids = new Set<string>();
			let current = this.leafId ? byId.get(this.leafId) : undefined;
			while (current && !ids.has(current.id)) {
				ids.add(current.id);
				current = current.parentId ? byId.get(current.parentId) : undefined;
			}
			this.pathIds = ids;
		}
		return this.pathIds.has(id);
	}

	/** The context messages (shared array: callers copy before handing it out). */
	messages(): AgentMessage[] {
		if (!this.flat) {
			const flat: AgentMessage[] = [];
			const entries = this.contextEntries;
			const edits = this.edits;
			for (let i = 0; i < entries.length; i++) {
				const entry = entries[i]!;
				// Only the compaction at index 0 (the latest) contributes a summary.
				if (i > 0 && entry.type === "compaction") continue;
				const edit = edits?.get(entry.id);
				if (edit) for (const message of projectContextEntry(entry, edit)) flat.push(message);
				else pushContextMessages(entry, flat);
			}
			this.flat = flat;
		}
		return this.flat;
	}

	/** A fresh copy of the context entries. */
	entries(): SessionEntry[] {
		return this.contextEntries.slice();
	}

	/** A projection with fresh top-level arrays; its per-entry items are frozen and shared. */
	projection(): SessionProjection {
		if (!this.projected) {
			this.projected = this.contextEntries.map((entry, i) => projectedEntry(entry, this.edits?.get(entry.id), i > 0));
		}
		return {
			entries: this.projected.slice(),
			messages: this.messages().slice(),
			thinkingLevel: this.thinkingLevel,
			model: this.modelCopy(),
		};
	}

	context(): SessionContext {
		return { messages: this.messages().slice(), thinkingLevel: this.thinkingLevel, model: this.modelCopy() };
	}

	private modelCopy(): SessionContext["model"] {
		return this.hasModel ? { provider: this.modelProvider, modelId: this.modelId } : null;
	}
}

function projectedEntry(
	entry: SessionEntry,
	edit: ContextEditEntry | undefined,
	notFirst: boolean,
): ProjectedSessionEntry {
	const messages = notFirst && entry.type === "compaction" ? [] : projectContextEntry(entry, edit);
	return Object.freeze({ sourceEntry: entry, messages: Object.freeze(messages) as AgentMessage[] });
}
