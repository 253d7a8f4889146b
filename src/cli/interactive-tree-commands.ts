/**
 * The session-tree commands of `settle -i`: `/tree` (print the tree, or go to an entry with pi's
 * navigateTree, asking whether to summarize the branch left), `/label` (name an entry in the
 * tree) and `/clone` (copy the current branch into a new session file and switch to it).
 */
import { SettleError } from "../errors.js";
import type { SessionEntry } from "../store/entries.js";
import type { CommandHost } from "./interactive-commands.js";
import { clip, firstLine, oneLineText } from "./interactive-render.js";
import { describeEntry, matchEntryIds, renderSessionTree, SHORT_ID_CHARS, shortId } from "./interactive-tree.js";

/** Lines `/tree` prints at most (header and footer included); `/tree all` has no bound. */
export const TREE_MAX_LINES = 40;

/** Characters of a label /label prints (the label itself is kept whole). */
const LABEL_LIST_CHARS = 80;

/** After a `/tree` move that nothing was written for: what quitting now would reopen. */
export const UNSAVED_POSITION_NOTICE =
	"This position is saved with your next message: quit before one and the session reopens at the branch written last.";

/** pi's choices after picking an entry in its tree view. */
export const SUMMARY_CHOICES = ["No summary", "Summarize", "Summarize with custom prompt"] as const;

/** Whether `/tree args` only prints (allowed while a run streams) rather than navigating. */
export function treeOnlyPrints(args: string): boolean {
	return args === "" || args === "all";
}

/** `/tree`, `/tree all`, `/tree <id-prefix>`. */
export async function treeCommand(host: CommandHost, args: string): Promise<void> {
	if (treeOnlyPrints(args)) {
		printTree(host, args === "all");
		return;
	}
	await navigate(host, args);
}

function printTree(host: CommandHost, all: boolean): void {
	const manager = host.runtime.session.sessionManager;
	const roots = manager.getTree();
	if (roots.length === 0) {
		host.print("The session has no entries yet.");
		return;
	}
	const leafId = manager.getLeafId();
	// Up to four lines around the tree: the header, the position note, what is left out, the hint.
	const tree = renderSessionTree(roots, leafId, all ? { all } : { maxLines: TREE_MAX_LINES - 4 });
	host.print("Session tree (• the current branch, ← here: where your next message goes):");
	for (const line of tree.lines) host.print(line);
	if (leafId === null)
		host.notice("The current position is before the first entry: your next message starts a new root.");
	if (tree.shown < tree.total) {
		host.notice(
			`${tree.shown} of ${tree.total} entries shown: /tree all lists every entry (and the bookkeeping ones).`,
		);
	}
	host.notice("/tree <id> goes to an entry, /label <id> <text> labels it.");
}

/** The entry whose id starts with `prefix`; a clear error for none or several. */
export function resolveEntry(host: CommandHost, prefix: string): SessionEntry {
	const manager = host.runtime.session.sessionManager;
	const entries = manager.getEntries();
	const matches = matchEntryIds(
		entries.map((entry) => entry.id),
		prefix,
	);
	if (matches.length === 0) {
		throw new SettleError("NOT_FOUND", `No entry of this session has an id starting with ${prefix}: /tree lists them.`);
	}
	if (matches.length > 1) {
		const listed = matches
			.slice(0, 5)
			.map(
				(id) =>
					`${id.slice(0, Math.max(SHORT_ID_CHARS, prefix.length + 2))} (${clip(describeEntry(manager.getEntry(id)!), 40)})`,
			);
		const more = matches.length > 5 ? `, and ${matches.length - 5} more` : "";
		throw new SettleError(
			"INVALID_ARGUMENT",
			`${matches.length} entries have an id starting with ${prefix}: ${listed.join(", ")}${more}. Give more of the id.`,
		);
	}
	return manager.getEntry(matches[0]!)!;
}

/** pi's tree selection: the summary question, then `navigateTree`; a user message comes back to edit. */
async function navigate(host: CommandHost, prefix: string): Promise<void> {
	const session = host.runtime.session;
	const manager = session.sessionManager;
	const target = resolveEntry(host, prefix);
	if (target.id === manager.getLeafId()) {
		host.print("Already at this point.");
		return;
	}
	let summarize = false;
	let customInstructions: string | undefined;
	if (!session.settingsManager.getBranchSummarySkipPrompt()) {
		const choice = await host.ui.select("Summarize the branch you leave?", [...SUMMARY_CHOICES]);
		if (choice === undefined) {
			host.print("Navigation cancelled.");
			return;
		}
		summarize = choice !== "No summary";
		if (choice === "Summarize with custom prompt") {
			const instructions = await host.ui.input("Custom summarization instructions");
			if (instructions === undefined) {
				host.print("Navigation cancelled.");
				return;
			}
			// An empty line: a summary with the default instructions.
			if (instructions.trim()) customInstructions = instructions.trim();
		}
	}
	if (summarize) host.notice("Summarizing the branch you leave… (Ctrl+C cancels)");
	const result = await session.navigateTree(target.id, {
		summarize,
		...(customInstructions !== undefined ? { customInstructions } : {}),
	});
	if (result.aborted) {
		host.print("Branch summarization cancelled: still at the same point.");
		return;
	}
	if (result.cancelled) {
		host.print("Navigation cancelled by an extension.");
		return;
	}
	if (result.editorText !== undefined) {
		const at = target.parentId ? `${shortId(target.parentId)}` : "the start";
		host.print(`Now at ${at}, just before your message ${shortId(target.id)}: ${firstLine(result.editorText)}`);
		host.notice("Send it again, edited, or type another one.");
		host.prefill(result.editorText);
	} else {
		host.print(`Now at ${shortId(target.id)}: ${describeEntry(target)}`);
	}
	if (result.summaryEntry) {
		host.notice(`The branch you left is summarized in entry ${shortId(result.summaryEntry.id)}.`);
	}
	// pi's format has no position entry: a reopened file resumes at the entry written last.
	if (manager.isPersisted() && manager.getLeafId() !== manager.getEntries().at(-1)?.id) {
		host.notice(UNSAVED_POSITION_NOTICE);
	}
}

/** `/label` (list), `/label <id-prefix> <text>` (set), `/label <id-prefix>` (clear). */
export function labelCommand(host: CommandHost, args: string): void {
	const manager = host.runtime.session.sessionManager;
	if (!args) {
		const labelled = manager.getEntries().flatMap((entry) => {
			const label = manager.getLabel(entry.id);
			return label === undefined ? [] : [{ entry, label }];
		});
		if (labelled.length === 0) {
			host.print("No entry has a label. Usage: /label <entry-id> <text> (no text clears it); /tree shows the ids.");
			return;
		}
		host.print("Labels:");
		for (const { entry, label } of labelled) {
			host.print(`  ${shortId(entry.id)} [${clip(oneLineText(label), LABEL_LIST_CHARS)}] ${describeEntry(entry)}`);
		}
		return;
	}
	const [prefix = "", ...rest] = args.split(/\s+/);
	const text = rest.join(" ").trim();
	const entry = resolveEntry(host, prefix);
	const current = manager.getLabel(entry.id);
	if (!text) {
		if (current === undefined) {
			host.print(`Entry ${shortId(entry.id)} has no label.`);
			return;
		}
		manager.appendLabelChange(entry.id, undefined);
		host.print(`Label of ${shortId(entry.id)} cleared (it was: ${clip(oneLineText(current), LABEL_LIST_CHARS)}).`);
		return;
	}
	manager.appendLabelChange(entry.id, text);
	host.print(`Label of ${shortId(entry.id)}: ${clip(oneLineText(text), LABEL_LIST_CHARS)}`);
}

/** `/clone`: the current branch, up to the current position, into a new session file. */
export async function cloneCommand(host: CommandHost): Promise<void> {
	const { runtime } = host;
	const leafId = runtime.session.sessionManager.getLeafId();
	if (!leafId) {
		host.print("Nothing to clone yet.");
		return;
	}
	const result = await runtime.fork(leafId, { position: "at" });
	if (result.cancelled) {
		host.print("Clone cancelled by an extension.");
		return;
	}
	host.print(`Cloned into a new session ${runtime.session.sessionId}: ${runtime.session.sessionFile ?? "in memory"}`);
}
