import { describe, expect, it } from "vitest";
import { createAllToolDefinitions, defaultActiveToolNames } from "../../src/tools/index.js";
import {
	collectExtensionTools,
	createSyntheticSourceInfo,
	describeTools,
	initialActiveToolNames,
	inlineExtensionSourceInfo,
	mergeToolRegistry,
	normalizePromptGuidelines,
	normalizePromptSnippet,
	promptToolSection,
	type RegisteredTool,
} from "../../src/tools/registry.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";

const tool = (name: string, extra: Partial<AnyToolDefinition> = {}): AnyToolDefinition => ({
	name,
	label: name,
	description: `${name} tool`,
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: name }], details: undefined }),
	...extra,
});
const fromExtension = (name: string, path: string, extra: Partial<AnyToolDefinition> = {}): RegisteredTool => ({
	definition: tool(name, extra),
	sourceInfo: createSyntheticSourceInfo(path, { source: "local", scope: "project" }),
});
const builtins = createAllToolDefinitions("/repo");
const defaults = initialActiveToolNames({}, defaultActiveToolNames);

describe("mergeToolRegistry: precedence and source info", () => {
	it("SDK tools replace extension tools, which replace built-ins; a replaced tool keeps its position", () => {
		const { tools } = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("read", "/ext/a.ts"), fromExtension("deploy", "/ext/a.ts")],
			customTools: [tool("deploy"), tool("bash")],
		});
		expect([...tools.keys()]).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls", "deploy"]);
		expect(tools.get("read")?.kind).toBe("extension");
		expect(tools.get("read")?.sourceInfo.path).toBe("/ext/a.ts");
		expect(tools.get("bash")?.kind).toBe("sdk");
		expect(tools.get("bash")?.sourceInfo).toEqual({
			path: "<sdk:bash>",
			source: "sdk",
			scope: "temporary",
			origin: "top-level",
		});
		expect(tools.get("deploy")?.kind).toBe("sdk");
		expect(tools.get("edit")?.sourceInfo).toEqual({
			path: "<builtin:edit>",
			source: "builtin",
			scope: "temporary",
			origin: "top-level",
		});
	});

	it("the first extension to register a name wins", () => {
		const first = fromExtension("lint", "/ext/first.ts");
		const second = fromExtension("lint", "/ext/second.ts");
		const collected = collectExtensionTools([
			{ tools: new Map([["lint", first]]) },
			{ tools: new Map([["lint", second]]) },
		]);
		expect(collected).toEqual([first]);
		const { tools } = mergeToolRegistry({ builtinTools: builtins, extensionTools: [first, second] });
		expect(tools.get("lint")?.sourceInfo.path).toBe("/ext/first.ts");
	});

	it("names inline extensions <inline:N>", () => {
		expect(inlineExtensionSourceInfo(2)).toEqual({
			path: "<inline:2>",
			source: "inline",
			scope: "temporary",
			origin: "top-level",
		});
	});
});

describe("mergeToolRegistry: filters", () => {
	it("an allowlist filters every source, extension tools included (regression 2835), and activates what it allows", () => {
		const { tools, activeToolNames } = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("deploy", "/ext/a.ts"), fromExtension("secret", "/ext/a.ts")],
			customTools: [tool("report")],
			allowedToolNames: ["read", "deploy", "report"],
			activeToolNames: initialActiveToolNames({ tools: ["read", "deploy", "report"] }, defaultActiveToolNames),
			includeAllExtensionTools: true,
		});
		expect([...tools.keys()]).toEqual(["read", "deploy", "report"]);
		expect(activeToolNames).toEqual(["read", "deploy", "report"]);
	});

	it("excluding a name removes the built-in, extension and SDK tool of that name", () => {
		const { tools, activeToolNames } = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("read", "/ext/a.ts")],
			customTools: [tool("read")],
			excludedToolNames: ["read"],
			activeToolNames: defaults,
			includeAllExtensionTools: true,
		});
		expect(tools.has("read")).toBe(false);
		expect(activeToolNames).toEqual(["bash", "edit", "write"]);
	});

	it('noTools "all" registers nothing', () => {
		const { tools, activeToolNames } = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("deploy", "/ext/a.ts")],
			customTools: [tool("report")],
			noTools: "all",
			activeToolNames: initialActiveToolNames({ noTools: "all" }, defaultActiveToolNames),
			includeAllExtensionTools: true,
		});
		expect(tools.size).toBe(0);
		expect(activeToolNames).toEqual([]);
	});

	it('noTools "builtin" keeps built-ins available but inactive, and extension/SDK tools active', () => {
		const { tools, activeToolNames } = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("deploy", "/ext/a.ts")],
			customTools: [tool("report")],
			noTools: "builtin",
			activeToolNames: initialActiveToolNames({ noTools: "builtin" }, defaultActiveToolNames),
			includeAllExtensionTools: true,
		});
		expect(tools.has("read")).toBe(true);
		expect(activeToolNames).toEqual(["deploy", "report"]);
	});

	it("initial active names: allowlist, else none with noTools, else defaults; minus excluded", () => {
		expect(initialActiveToolNames({}, defaultActiveToolNames)).toEqual(["read", "bash", "edit", "write"]);
		expect(initialActiveToolNames({ tools: ["grep", "read"] }, defaultActiveToolNames)).toEqual(["grep", "read"]);
		expect(initialActiveToolNames({ noTools: "builtin" }, defaultActiveToolNames)).toEqual([]);
		expect(initialActiveToolNames({ excludeTools: ["bash"] }, defaultActiveToolNames)).toEqual([
			"read",
			"edit",
			"write",
		]);
	});
});

describe("mergeToolRegistry: next active set", () => {
	it("at construction, activates the defaults plus every extension and SDK tool", () => {
		const { activeToolNames } = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("deploy", "/ext/a.ts")],
			customTools: [tool("report")],
			activeToolNames: defaults,
			includeAllExtensionTools: true,
		});
		expect(activeToolNames).toEqual(["read", "bash", "edit", "write", "deploy", "report"]);
	});

	it("on a runtime registration, keeps the previous choice and adds only the new tool", () => {
		const before = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("deploy", "/ext/a.ts")],
			activeToolNames: defaults,
			includeAllExtensionTools: true,
		});
		// The user turned bash and deploy off; then an extension registers another tool.
		const previousActive = before.activeToolNames.filter((name) => name !== "bash" && name !== "deploy");
		const after = mergeToolRegistry({
			builtinTools: builtins,
			extensionTools: [fromExtension("deploy", "/ext/a.ts"), fromExtension("status", "/ext/a.ts")],
			previousActiveToolNames: previousActive,
			previousRegistryNames: [...before.tools.keys()],
		});
		expect(after.activeToolNames).toEqual(["read", "edit", "write", "status"]);
	});

	it("drops unknown names and duplicates from explicit names", () => {
		const { activeToolNames } = mergeToolRegistry({
			builtinTools: builtins,
			activeToolNames: ["ls", "nope", "ls", "read"],
		});
		expect(activeToolNames).toEqual(["ls", "read"]);
	});

	it("does not modify its input", () => {
		const extensionTools = [fromExtension("deploy", "/ext/a.ts")];
		const active = ["read"];
		const frozen = JSON.stringify({ extensionTools, active });
		mergeToolRegistry({
			builtinTools: builtins,
			extensionTools,
			activeToolNames: active,
			includeAllExtensionTools: true,
		});
		expect(JSON.stringify({ extensionTools, active })).toBe(frozen);
	});
});

describe("prompt snippets and guidelines", () => {
	it("normalizes snippets to one line and guidelines to trimmed unique lines", () => {
		expect(normalizePromptSnippet("  Deploy the\n  current   branch\r\n")).toBe("Deploy the current branch");
		expect(normalizePromptSnippet(" \n ")).toBeUndefined();
		expect(
			normalizePromptGuidelines([" Use deploy carefully. ", "", "Use deploy carefully.", "Check status first."]),
		).toEqual(["Use deploy carefully.", "Check status first."]);
	});

	it("lists only active tools with a snippet, and merges their guidelines without duplicates", () => {
		const { tools } = mergeToolRegistry({
			builtinTools: [],
			customTools: [
				tool("deploy", { promptSnippet: "Deploy\nthe app", promptGuidelines: ["Ask first.", " Ask first. "] }),
				tool("status", { promptGuidelines: ["Ask first.", "Be brief."] }),
				tool("hidden", { promptSnippet: "Never listed: inactive" }),
			],
		});
		expect(promptToolSection(tools, ["deploy", "status", "unknown"])).toEqual({
			selectedTools: ["deploy", "status"],
			toolSnippets: { deploy: "Deploy the app" },
			promptGuidelines: ["Ask first.", "Be brief."],
		});
		expect(describeTools(tools).map((info) => [info.name, info.sourceInfo.path])).toEqual([
			["deploy", "<sdk:deploy>"],
			["status", "<sdk:status>"],
			["hidden", "<sdk:hidden>"],
		]);
	});

	it("every built-in tool has a one-line snippet", () => {
		for (const definition of Object.values(builtins)) {
			expect(normalizePromptSnippet(definition.promptSnippet)).toBe(definition.promptSnippet);
		}
	});
});
