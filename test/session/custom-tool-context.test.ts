/**
 * An SDK user's own tool wants the project folder, the session or the model. Its `execute` gets the
 * session's ExtensionContext as last argument (as in pi), but `defineTool` typed it `unknown`, so
 * `ctx.cwd` did not compile without a cast. The test's `execute` uses `ctx` untyped, as a user
 * writes it (the type check, `npx tsc --noEmit`, fails without the fix), and what it reads is the
 * session's own cwd, id and model.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ExtensionContext } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage, fauxToolCall } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { defineTool } from "../../src/tools/types.js";

describe("a custom tool's execute context", () => {
	it("is typed as the ExtensionContext and is the session's: cwd, session id and model", async () => {
		const where = defineTool({
			name: "where",
			label: "Where",
			description: "The project folder, session and model",
			parameters: Type.Object({}),
			execute: async (_id, _params, _signal, _onUpdate, ctx) => {
				expectTypeOf(ctx).toEqualTypeOf<ExtensionContext>();
				const text = `${ctx.cwd} ${ctx.sessionManager.getSessionId()} ${ctx.model?.provider}/${ctx.model?.id}`;
				return { content: [{ type: "text", text }], details: {} };
			},
		});
		const faux = createFauxProvider();
		const modelRuntime = new InMemoryModelRuntime();
		modelRuntime.registerFauxProvider(faux);
		const cwd = mkdtempSync(join(tmpdir(), "settle-custom-tool-context-"));
		const { session } = await createAgentSession({
			cwd,
			modelRuntime,
			model: faux.getModel(),
			settingsManager: SettingsManager.inMemory(),
			sessionManager: SessionManager.inMemory(cwd),
			customTools: [where],
		});
		try {
			faux.setResponses([
				fauxAssistantMessage([fauxToolCall("where", {})], { stopReason: "toolUse" }),
				fauxAssistantMessage("done"),
			]);
			await session.prompt("where are we?");
			const result = session.messages.find((message) => message.role === "toolResult");
			expect(result).toMatchObject({
				toolName: "where",
				isError: false,
				content: [{ type: "text", text: `${cwd} ${session.sessionId} faux/faux-1` }],
			});
		} finally {
			session.dispose();
			rmSync(cwd, { recursive: true, force: true });
		}
	});
});
