/**
 * Machine definition → Mermaid `stateDiagram-v2` text. Deterministic (definition order, no
 * timestamps), so the checked-in diagrams can be compared byte for byte.
 */
import type { AnyStateMachine } from "xstate";
import {
	describeMachine,
	generatedNote,
	internalTransitionLines,
	type MachineModel,
	type PlacedTransition,
	placeTransitions,
	type StateModel,
	stateDetailLines,
	transitionLabel,
} from "./machine-model.js";

/** Options for {@link toMermaid}. */
export interface MermaidOptions {
	/** Diagram title (front matter); defaults to the machine id. */
	title?: string;
	/** Wrap description lines at this many characters (default 56). */
	wrap?: number;
	/** The command that regenerates this file, named in its header comment (e.g. `npm run viz`). */
	regenerateCommand?: string;
}

/**
 * Renders a machine as a Mermaid `stateDiagram-v2`: nested states as composite states, every
 * transition as an edge labelled `EVENT (priority) [guard] / actions` (delays as `after <delay>`,
 * invocations as `done(<id>)` / `error(<id>)`); targetless transitions, invocations and entry
 * actions are written inside their state (notes for composite states). Pure; never throws for a
 * valid machine.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * writeFileSync("prompt-operation.mmd", toMermaid(promptOperationMachine));
 * ```
 */
export function toMermaid(machine: AnyStateMachine, options: MermaidOptions = {}): string {
	const model = describeMachine(machine);
	return renderMermaid(model, options);
}

/**
 * {@link toMermaid} for an already described machine.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 *
 * const model = describeMachine(promptOperationMachine);
 * writeFileSync("prompt-operation.mmd", renderMermaid(model, { title: "Prompt operation" }));
 * ```
 */
export function renderMermaid(model: MachineModel, options: MermaidOptions = {}): string {
	const wrap = options.wrap ?? 56;
	const placed = placeTransitions(model);
	const lines: string[] = [
		"---",
		`title: ${clean(options.title ?? model.id)}`,
		"---",
		"stateDiagram-v2",
		`%% ${generatedNote("toMermaid", options.regenerateCommand)}`,
	];
	const mermaidId = (state: StateModel) => (state.path.length ? state.path.join("_") : "root");

	const renderLevel = (container: StateModel, indent: string) => {
		if (container.initial) {
			const initial = container.children.find((child) => child.id === container.initial);
			if (initial) lines.push(`${indent}[*] --> ${mermaidId(initial)}`);
		}
		container.children.forEach((child, index) => {
			// Regions of a parallel state are separated by `--` (Mermaid's concurrency syntax).
			if (container.type === "parallel" && index > 0) lines.push(`${indent}--`);
			if (child.children.length) {
				lines.push(`${indent}state ${mermaidId(child)} {`);
				renderLevel(child, `${indent}    `);
				lines.push(`${indent}}`);
			} else {
				if (child.path.length > 1 || child.key !== mermaidId(child)) {
					lines.push(`${indent}state "${clean(child.key)}" as ${mermaidId(child)}`);
				}
				for (const text of stateDetails(child, placed, wrap)) lines.push(`${indent}${mermaidId(child)} : ${text}`);
			}
			if (child.type === "final") lines.push(`${indent}${mermaidId(child)} --> [*]`);
		});
		for (const entry of placed) {
			if (entry.kind !== "edge" || entry.container !== container) continue;
			lines.push(
				`${indent}${mermaidId(entry.source)} --> ${mermaidId(entry.target)} : ${clean(transitionLabel(entry.transition))}`,
			);
		}
		for (const child of container.children) {
			if (!child.children.length) continue;
			const details = stateDetails(child, placed, wrap);
			if (!details.length) continue;
			lines.push(`${indent}note right of ${mermaidId(child)}`);
			for (const text of details) lines.push(`${indent}    ${text}`);
			lines.push(`${indent}end note`);
		}
	};

	renderLevel(model.root, "    ");
	const rootDetails = internalTransitionLines(model.root, placed).map((text) => `any state ${text}`);
	const firstState = model.root.children.find((child) => child.id === model.root.initial) ?? model.root.children[0];
	if (rootDetails.length && firstState) {
		lines.push(`    note left of ${mermaidId(firstState)}`);
		for (const text of rootDetails) lines.push(`        ${clean(text)}`);
		lines.push("    end note");
	}
	return `${lines.join("\n")}\n`;
}

function stateDetails(state: StateModel, placed: readonly PlacedTransition[], wrap: number): string[] {
	return stateDetailLines(state, placed, wrap).map(clean);
}

/** Mermaid's state-diagram grammar treats `:` `;` `#` `{` `}` `"` `<` `>` specially; keep labels plain. */
function clean(text: string): string {
	return text
		.replace(/:/g, " -")
		.replace(/;/g, ",")
		.replace(/#/g, "no.")
		.replace(/[{}]/g, "")
		.replace(/"/g, "'")
		.replace(/</g, "‹")
		.replace(/>/g, "›")
		.replace(/\s+/g, " ")
		.trim();
}
