/**
 * pi-free#445: a session saved on a model that an extension's provider serves (`pi.registerProvider`:
 * opencode-free, openrouter, a gateway) reopened on another model with "Could not restore model":
 * pi picked the session's model before the extension's providers were applied, and the fallback
 * stuck for the whole session. What that user should see: the reopened session on its model, no
 * fallback, the next request served by the extension's provider. Two processes simulated by two sets
 * of services (fresh model runtimes) over one session file on disk; the provider is registered when
 * the extension loads. (pi-free's provider registers later, from a detached start-up task: re-selecting
 * the model then is the extension's part, as in pi, and is not replayed here.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { createFauxProvider, fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { createAgentSessionFromServices } from "../../src/runtime/sdk.js";
import { createAgentSessionServices } from "../../src/runtime/services.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { SessionManager } from "../../src/store/session-manager.js";

let dir: string | undefined;
const sessions: AgentSession[] = [];
afterEach(() => {
	for (const session of sessions.splice(0)) session.dispose();
	if (dir) rmSync(dir, { recursive: true, force: true });
	dir = undefined;
});

describe("pi-free#445: a session on an extension provider's model reopens on another model", () => {
	it("pi-free#445: saved on ext-gateway/free-1, reopened in a new process: the same model, no fallback message, the request served by the extension's provider", async () => {
		dir = mkdtempSync(join(tmpdir(), "settle-pi-races-ext-model-"));
		const root = dir;
		const agentDir = join(root, "agent");
		const sessionDir = join(root, "sessions");
		const faux = createFauxProvider({ models: [{ id: "built-in" }] });
		// What the gateway's stream answers with (its messages name the gateway as their provider).
		const upstream = createFauxProvider({
			provider: "ext-gateway",
			api: "ext-gateway-api",
			models: [{ id: "free-1" }],
		});
		const gateway = (pi: ExtensionAPI) =>
			pi.registerProvider("ext-gateway", {
				api: "ext-gateway-api",
				baseUrl: "http://localhost:1",
				apiKey: "free",
				models: [{ id: "free-1", name: "Free 1" }],
				streamSimple: upstream.streamFn as never,
			});
		const open = async (sessionManager: SessionManager, model?: string) => {
			const modelRuntime = new InMemoryModelRuntime();
			modelRuntime.registerFauxProvider(faux);
			const services = await createAgentSessionServices({
				cwd: root,
				agentDir,
				modelRuntime,
				resourceLoaderOptions: { extensionFactories: [gateway], noExtensions: true },
			});
			const created = await createAgentSessionFromServices({ services, sessionManager, ...(model ? { model } : {}) });
			sessions.push(created.session);
			return created;
		};

		const first = await open(SessionManager.create(root, sessionDir), "ext-gateway/free-1");
		upstream.setResponses([fauxAssistantMessage("first answer")]);
		await first.session.prompt("hello");
		const file = first.session.sessionFile!;
		first.session.dispose();
		first.session.sessionManager.close();

		const reopened = await open(SessionManager.open(file));
		expect(reopened.modelFallbackMessage).toBeUndefined();
		expect(reopened.session.model).toMatchObject({ provider: "ext-gateway", id: "free-1" });
		upstream.setResponses([fauxAssistantMessage("second answer")]);
		await reopened.session.prompt("again");
		expect(upstream.requests).toHaveLength(2);
		expect(upstream.requests.at(-1)?.model).toMatchObject({ provider: "ext-gateway", id: "free-1" });
	});
});
