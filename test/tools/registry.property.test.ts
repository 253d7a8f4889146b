import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	createSyntheticSourceInfo,
	mergeToolRegistry,
	type RegisteredTool,
	type ToolRegistryInput,
} from "../../src/tools/registry.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";

const names = fc.constantFrom("read", "bash", "edit", "deploy", "lint", "status");
const nameList = fc.uniqueArray(names, { maxLength: 6 });
const tool = (name: string, tag: string): AnyToolDefinition => ({
	name,
	label: tag,
	description: tag,
	parameters: {},
	execute: async () => ({ content: [], details: undefined }),
});

const input: fc.Arbitrary<ToolRegistryInput> = fc.record(
	{
		builtinTools: nameList.map((ns) => ns.map((n) => tool(n, "builtin"))),
		extensionTools: fc.array(fc.tuple(names, fc.nat(3)), { maxLength: 6 }).map((entries): RegisteredTool[] =>
			entries.map(([n, ext]) => ({
				definition: tool(n, `ext${ext}`),
				sourceInfo: createSyntheticSourceInfo(`/ext/${ext}.ts`, { source: "local" }),
			})),
		),
		customTools: nameList.map((ns) => ns.map((n) => tool(n, "sdk"))),
		allowedToolNames: nameList,
		excludedToolNames: nameList,
		noTools: fc.constantFrom("all" as const, "builtin" as const),
		activeToolNames: fc.array(names, { maxLength: 6 }),
		previousActiveToolNames: fc.array(names, { maxLength: 6 }),
		previousRegistryNames: nameList,
		includeAllExtensionTools: fc.boolean(),
	},
	{ requiredKeys: ["builtinTools"] },
);

describe("registry merge invariants", () => {
	it("registers only allowed names, with the highest-precedence source, and activates only registered names", () => {
		fc.assert(
			fc.property(input, (config) => {
				const { tools, activeToolNames } = mergeToolRegistry(config);
				const allowlist = config.allowedToolNames ?? (config.noTools === "all" ? [] : undefined);
				const excluded = new Set(config.excludedToolNames ?? []);
				const allowed = (n: string) => (!allowlist || allowlist.includes(n)) && !excluded.has(n);

				for (const [name, entry] of tools) {
					expect(allowed(name)).toBe(true);
					expect(entry.definition.name).toBe(name);
					const sdk = config.customTools?.some((t) => t.name === name);
					const firstExtension = config.extensionTools?.find((t) => t.definition.name === name);
					const expected = sdk ? "sdk" : firstExtension ? firstExtension.definition.label : "builtin";
					expect(entry.definition.label).toBe(expected);
				}
				// Every allowed name offered by some source is registered.
				const offered = [
					...(Array.isArray(config.builtinTools) ? config.builtinTools : []).map((t) => t.name),
					...(config.extensionTools ?? []).map((t) => t.definition.name),
					...(config.customTools ?? []).map((t) => t.name),
				];
				for (const name of offered) expect(tools.has(name)).toBe(allowed(name));

				expect(new Set(activeToolNames).size).toBe(activeToolNames.length);
				for (const name of activeToolNames) expect(tools.has(name)).toBe(true);
				if (allowlist) {
					// The allowlist activates every tool new to the registry; one already registered is
					// active only when the base set names it (pi#7406: turned off stays off).
					const previous = config.previousRegistryNames ? new Set(config.previousRegistryNames) : undefined;
					const base = config.activeToolNames ?? config.previousActiveToolNames ?? [];
					const expected = [...tools.keys()].filter((name) => !previous?.has(name) || base.includes(name));
					expect(new Set(activeToolNames)).toEqual(new Set(expected));
				}
			}),
			{ numRuns: 500 },
		);
	});

	it("is deterministic", () => {
		fc.assert(
			fc.property(input, (config) => {
				const a = mergeToolRegistry(config);
				const b = mergeToolRegistry(config);
				expect([...a.tools.keys()]).toEqual([...b.tools.keys()]);
				expect(a.activeToolNames).toEqual(b.activeToolNames);
			}),
			{ numRuns: 100 },
		);
	});
});
