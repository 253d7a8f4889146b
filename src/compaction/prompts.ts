/**
 * Prompts of the default summarizers. The section headings are a contract: users, extensions and
 * later update-mode requests read summaries by these headings.
 */

export const SUMMARIZATION_SYSTEM_PROMPT = `You are a context summarization assistant. You receive the transcript of a conversation between a user and an AI coding assistant and write a structured summary of it in exactly the format you are asked for.

Do not continue the conversation, do not answer questions that appear in it, and add no commentary: output only the summary.`;

const CHECKPOINT_FORMAT = (hints: {
	goal: string;
	constraints: string;
	done: string;
	inProgress: string;
	blocked: string;
	decisions: string;
	next: string;
	context: string;
}) => `## Goal
${hints.goal}

## Constraints & Preferences
${hints.constraints}

## Progress
### Done
${hints.done}

### In Progress
${hints.inProgress}

### Blocked
${hints.blocked}

## Key Decisions
${hints.decisions}

## Next Steps
${hints.next}

## Critical Context
${hints.context}`;

/** First compaction of a branch: summarize the conversation into a checkpoint. */
export const CHECKPOINT_PROMPT = `The conversation above is finished. Write a checkpoint summary of it that another LLM will read to pick up the work exactly where it stopped.

Use exactly this structure:

${CHECKPOINT_FORMAT({
	goal: "[What the user wants to achieve. List several goals if the session covered several tasks.]",
	constraints: '- [Requirements, constraints and preferences the user stated]\n- [Write "(none)" if there were none]',
	done: "- [x] [Finished tasks and changes]",
	inProgress: "- [ ] [Work under way]",
	blocked: "- [What stops progress, if anything]",
	decisions: "- **[Decision]**: [Why, in a few words]",
	next: "1. [What should happen next, in order]",
	context: '- [Data, examples or references needed to continue]\n- [Write "(none)" if there is nothing]',
})}

Be brief in every section. Keep file paths, function names and error messages exactly as they appear.`;

/** Later compactions: merge the new messages into the previous summary. */
export const CHECKPOINT_UPDATE_PROMPT = `The conversation above holds only NEW messages. Merge them into the existing summary given in the <previous-summary> tags.

Rules:
- Keep everything from the previous summary that still holds
- Add the new progress, decisions and context
- Move items from "In Progress" to "Done" once they are finished
- Rewrite "Next Steps" to match where the work stands now
- Keep file paths, function names and error messages exactly as they appear
- Drop what is no longer relevant

Use exactly this structure:

${CHECKPOINT_FORMAT({
	goal: "[The existing goals, plus new ones if the task grew]",
	constraints: "- [The existing ones, plus new ones that came up]",
	done: "- [x] [Items done before AND items finished in the new messages]",
	inProgress: "- [ ] [Current work, updated]",
	blocked: "- [Current blockers; remove resolved ones]",
	decisions: "- **[Decision]**: [Why, in a few words] (keep the earlier ones, add new ones)",
	next: "1. [Updated to the current state]",
	context: "- [Keep what still matters, add what is new]",
})}

Be brief in every section. Keep file paths, function names and error messages exactly as they appear.`;

/** Split turn: summarize the beginning of a turn whose end is kept verbatim. */
export const TURN_PREFIX_PROMPT = `The conversation above is the BEGINNING of a turn that was too long to keep. The end of the turn (the most recent work) is kept verbatim.

Summarize this beginning so that the kept end makes sense on its own:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done so far]

## Context for Suffix
- [What the kept recent work depends on]

Be brief and focus on what the kept part needs.`;

/**
 * Split turn whose beginning is too large for one request: merge the next part of the beginning
 * into the summary of its earlier parts (same structure as {@link TURN_PREFIX_PROMPT}).
 */
export const TURN_PREFIX_UPDATE_PROMPT = `The conversation above CONTINUES the beginning of a turn that was too long to keep; the summary of the earlier part of that beginning is in the <previous-summary> tags. The end of the turn (the most recent work) is kept verbatim.

Merge the conversation above into the previous summary, keeping this structure, so that the kept end makes sense on its own:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done so far, earlier and new]

## Context for Suffix
- [What the kept recent work depends on]

Be brief and focus on what the kept part needs.`;

/** Tree navigation: summarize the branch being left. */
export const BRANCH_SUMMARY_PROMPT = `Summarize the conversation branch above in a structured form, so its work can be picked up if the user comes back to it.

Use exactly this structure:

## Goal
[What the user was trying to achieve in this branch]

## Constraints & Preferences
- [Requirements, constraints and preferences that were stated]
- [Write "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [What stopped progress, if anything]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What should happen next to continue this work]

Be brief in every section. Keep file paths, function names and error messages exactly as they appear.`;

/** Put before a generated branch summary (pi's text, so summaries read the same in both tools). */
export const BRANCH_SUMMARY_PREAMBLE = `The user explored a different conversation branch before returning here.
Summary of that exploration:

`;

/**
 * Joins the history summary and the split-turn summary (pi's layout).
 *
 * @example
 * ```ts
 * joinSplitTurnSummary("## Goal\n…", "## Original Request\n…");
 * // "## Goal\n…\n\n---\n\n**Turn Context (split turn):**\n\n## Original Request\n…"
 * ```
 */
export function joinSplitTurnSummary(historySummary: string, turnPrefixSummary: string): string {
	return `${historySummary}\n\n---\n\n**Turn Context (split turn):**\n\n${turnPrefixSummary}`;
}

/** History summary text when only a turn prefix was summarized. */
export const NO_PRIOR_HISTORY = "No prior history.";

/**
 * Appends `Additional focus: <instructions>` to a prompt (unchanged without instructions).
 *
 * @example
 * ```ts
 * withCustomInstructions("Summarize.", "the API changes"); // "Summarize.\n\nAdditional focus: the API changes"
 * withCustomInstructions("Summarize.", undefined); // "Summarize."
 * ```
 */
export function withCustomInstructions(prompt: string, customInstructions: string | undefined): string {
	return customInstructions ? `${prompt}\n\nAdditional focus: ${customInstructions}` : prompt;
}

/**
 * The one user message of a summarization request: the conversation in `<conversation>` tags, the
 * previous summary (when given) in `<previous-summary>` tags, then the instructions.
 *
 * @example
 * ```ts
 * summarizationRequestText("[User]: hi", "Summarize.");
 * // "<conversation>\n[User]: hi\n</conversation>\n\nSummarize."
 * ```
 */
export function summarizationRequestText(conversation: string, instructions: string, previousSummary?: string): string {
	let text = `<conversation>\n${conversation}\n</conversation>\n\n`;
	if (previousSummary !== undefined) text += `<previous-summary>\n${previousSummary}\n</previous-summary>\n\n`;
	return text + instructions;
}
