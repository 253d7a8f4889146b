import { Type } from "@sinclair/typebox";
import { describe, expect, expectTypeOf, it } from "vitest";
import { createEditToolDefinition } from "../../src/tools/edit.js";
import {
	allToolNames,
	createAllTools,
	createCodingTools,
	createReadOnlyToolDefinitions,
} from "../../src/tools/index.js";
import { defineTool, toAgentTool, toolDefinitionFromAgentTool } from "../../src/tools/types.js";
import { tempProject } from "./helpers.js";

describe("defineTool / toAgentTool", () => {
	it("infers parameter types from a TypeBox schema", () => {
		const greet = defineTool({
			name: "greet",
			label: "Greet",
			description: "Greets",
			parameters: Type.Object({ name: Type.String(), times: Type.Optional(Type.Number()) }),
			execute: async (_id, params) => {
				expectTypeOf(params).toEqualTypeOf<{ name: string; times?: number }>();
				return { content: [{ type: "text", text: `hi ${params.name}` }], details: undefined };
			},
		});
		expect(greet.name).toBe("greet");
	});

	it("accepts schema objects typed by interfaces (other schema libraries, TypeBox 1.x)", async () => {
		interface ObjectSchema {
			type: "object";
			properties: { a: { type: "string" } };
		}
		const schema: ObjectSchema = { type: "object", properties: { a: { type: "string" } } };
		const tool = toAgentTool(
			defineTool({
				name: "plain",
				label: "plain",
				description: "plain",
				parameters: schema,
				execute: async (_id, params) => ({ content: [{ type: "text", text: String(params.a) }], details: undefined }),
			}),
		);
		expect(tool.parameters).toBe(schema);
		expect((await tool.execute("1", { a: "ok" })).content).toEqual([{ type: "text", text: "ok" }]);
	});

	it("passes the context current at execution time", async () => {
		let current = { user: "first" };
		const seen: string[] = [];
		const tool = defineTool({
			name: "who",
			label: "who",
			description: "who",
			parameters: Type.Object({}),
			execute: async (_id, _params, _signal, _onUpdate, ctx: { user: string }) => {
				seen.push(ctx.user);
				return { content: [], details: undefined };
			},
		});
		const agentTool = toAgentTool(tool, () => current);
		await agentTool.execute("1", {});
		current = { user: "second" };
		await agentTool.execute("2", {});
		expect(seen).toEqual(["first", "second"]);
	});

	it("keeps prepareArguments and executionMode, and forwards signal and updates", async () => {
		const edit = toAgentTool(createEditToolDefinition("/repo"));
		expect(edit.prepareArguments?.({ path: "a", oldText: "x", newText: "y" })).toEqual({
			path: "a",
			edits: [{ oldText: "x", newText: "y" }],
		});
		const updates: unknown[] = [];
		const controller = new AbortController();
		const tool = toAgentTool(
			defineTool({
				name: "slow",
				label: "slow",
				description: "slow",
				parameters: Type.Object({}),
				executionMode: "sequential",
				execute: async (_id, _p, signal, onUpdate) => {
					onUpdate?.({ content: [{ type: "text", text: "half" }], details: undefined });
					return { content: [{ type: "text", text: String(signal?.aborted) }], details: undefined };
				},
			}),
		);
		expect(tool.executionMode).toBe("sequential");
		controller.abort();
		const result = await tool.execute("1", {}, controller.signal, (u) => updates.push(u));
		expect(result.content).toEqual([{ type: "text", text: "true" }]);
		expect(updates).toHaveLength(1);
	});

	it("turns a plain AgentTool back into a definition", async () => {
		const agentTool = toAgentTool(createEditToolDefinition("/repo"));
		const definition = toolDefinitionFromAgentTool(agentTool);
		expect(definition).toMatchObject({ name: "edit", label: "edit", parameters: agentTool.parameters });
		expect(definition.promptSnippet).toBeUndefined();
		expect(definition.prepareArguments).toBe(agentTool.prepareArguments);
	});
});

describe("tool sets", () => {
	it("offers pi's coding, read-only and complete sets", async () => {
		expect(createCodingTools("/repo").map((t) => t.name)).toEqual(["read", "bash", "edit", "write"]);
		expect(createReadOnlyToolDefinitions("/repo").map((t) => t.name)).toEqual(["read", "grep", "find", "ls"]);
		const cwd = await tempProject({ "hello.txt": "hi" });
		const all = createAllTools(cwd);
		expect(Object.keys(all)).toEqual([...allToolNames]);
		expect((await all.ls.execute("1", {})).content).toEqual([{ type: "text", text: "hello.txt" }]);
	});
});
