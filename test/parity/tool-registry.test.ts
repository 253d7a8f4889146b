/**
 * The tool registry merge (behavior F.1) compared with pi 0.73.1 through each product's session:
 * precedence SDK > extension > built-in for one name, the first extension to register a name wins,
 * which tools are active at construction, the source info of each, what the model is offered,
 * which implementation a call runs, how `promptSnippet` / `promptGuidelines` reach the system
 * prompt, and what a tool registered at run time adds.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { onBothPeers, type Peer, type SharedTool } from "./peers.js";

interface RegistryApi {
	getActiveToolNames(): string[];
	getAllTools(): { name: string; sourceInfo?: { path?: string; source?: string; scope?: string; origin?: string } }[];
	readonly systemPrompt: string;
}

const params = { type: "object", properties: { note: { type: "string" } } };

function namedTool(name: string, owner: string, log: string[], extra: Record<string, unknown> = {}) {
	return {
		name,
		label: name,
		description: `${name} by ${owner}`,
		parameters: params,
		...extra,
		async execute() {
			log.push(`${name} ran (${owner})`);
			return { content: [{ type: "text" as const, text: `${name} from ${owner}` }], details: {} };
		},
	};
}

/** The "- name: snippet" and guideline lines of a system prompt, without the products' own wording. */
function toolLines(systemPrompt: string, names: string[]): string[] {
	return systemPrompt
		.split("\n")
		.filter((line) => names.some((name) => line.startsWith(`- ${name}:`)) || line.includes("GUIDELINE"));
}

function describeRegistry(peer: Peer) {
	const session = peer.session as unknown as RegistryApi;
	const custom = ["read", "probe", "shared", "late", "quiet"];
	return {
		active: session.getActiveToolNames(),
		all: session
			.getAllTools()
			.map((tool) => `${tool.name} ${tool.sourceInfo?.source ?? "?"} ${tool.sourceInfo?.scope ?? "?"}`),
		prompt: toolLines(session.systemPrompt, custom),
	};
}

describe("parity: tool registry merge (F.1)", () => {
	it("SDK tools win over extension tools, which win over built-ins; the first extension wins a name; snippets and guidelines reach the prompt; a runtime registration is added", async () => {
		const logs: Record<string, string[]> = { pi: [], settle: [] };
		const first =
			(log: string[]) =>
			(api: ExtensionAPI): void => {
				api.registerTool(
					namedTool("read", "extension one", log, { promptSnippet: "reads,\n  but   differently " }) as never,
				);
				api.registerTool(
					namedTool("shared", "extension one", log, {
						promptSnippet: "the first one",
						promptGuidelines: ["  GUIDELINE one  ", "GUIDELINE one", ""],
					}) as never,
				);
				api.registerTool(namedTool("probe", "extension one", log, { promptSnippet: "extension probe" }) as never);
				api.registerTool(namedTool("quiet", "extension one", log) as never);
				api.registerCommand("late", {
					description: "registers a tool at run time",
					handler: async () => {
						api.registerTool(namedTool("late", "extension one", log, { promptSnippet: "came late" }) as never);
					},
				});
			};
		const second =
			(log: string[]) =>
			(api: ExtensionAPI): void => {
				api.registerTool(namedTool("shared", "extension two", log, { promptSnippet: "the second one" }) as never);
			};
		const sdkTool = (log: string[]): SharedTool => namedTool("probe", "the SDK", log) as SharedTool;
		const { pi, settle } = await onBothPeers(
			(name) => ({
				extensions: [first(logs[name] ?? []), second(logs[name] ?? [])],
				customTools: [sdkTool(logs[name] ?? [])],
			}),
			async (peer) => {
				const atStart = describeRegistry(peer);
				peer.script([
					{
						toolCalls: [
							{ id: "c1", name: "read", args: {} },
							{ id: "c2", name: "shared", args: {} },
							{ id: "c3", name: "probe", args: {} },
							{ id: "c4", name: "quiet", args: {} },
						],
					},
					{ text: "Done." },
				]);
				await peer.prompt("use them");
				await peer.quiesce();
				await peer.prompt("/late");
				await peer.quiesce();
				return {
					atStart,
					offered: peer.requests[0]?.tools,
					ran: [...(logs[peer.name] ?? [])],
					afterLate: describeRegistry(peer),
				};
			},
		);
		expect(pi.ran).toEqual([
			"read ran (extension one)",
			"shared ran (extension one)",
			"probe ran (the SDK)",
			"quiet ran (extension one)",
		]);
		// One line per snippet, guidelines trimmed and de-duplicated; the SDK probe has no snippet, so
		// the extension probe's snippet is gone with it; the snippet-less quiet stays active, unlisted.
		expect(pi.atStart.prompt).toEqual(["- read: reads, but differently", "- shared: the first one", "- GUIDELINE one"]);
		expect(pi.atStart.active).toEqual(["read", "bash", "edit", "write", "shared", "probe", "quiet"]);
		expect(pi.afterLate.active).toContain("late");
		expect(settle).toEqual(pi);
	});
});
