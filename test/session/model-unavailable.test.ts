/**
 * The session's provider unregistered (an extension's logout, huggingface/tau#694): before the next
 * request, what a host reads must not say the model is fine. The model stays selected (as pi, so the
 * session goes on once the provider is back), and `session.modelUnavailable` says why it cannot be
 * requested: the very text the next prompt is refused with (it said "No API key found"). Registered
 * again, it is available again.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { closeSession, openSession, useWorkspace } from "../bad-input/helpers.js";

const ws = useWorkspace();

describe("session.modelUnavailable", () => {
	it("regression: names the unregistration before the next request, the same text the request fails with (was: nothing until it failed)", async () => {
		let api: ExtensionAPI | undefined;
		const relay = () =>
			api!.registerProvider("relay", {
				baseUrl: "http://127.0.0.1:9/v1",
				apiKey: "relay-key",
				api: ws.faux.api, // served by the faux provider's stream
				models: [
					{
						id: "m",
						name: "m",
						reasoning: false,
						input: ["text"],
						contextWindow: 128000,
						maxTokens: 4096,
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
					},
				],
			});
		const session = await openSession(ws, {
			extensions: [
				(pi) => {
					api = pi;
				},
			],
		});
		try {
			relay();
			await session.setModel(ws.modelRuntime.getModel("relay", "m")!);
			const selected = session.model!;
			expect(selected.provider).toBe("relay");
			expect(session.modelUnavailable).toBeUndefined();
			api!.unregisterProvider("relay");
			// Still the selection, and a lookup no longer finds it: the reason says both.
			expect(session.model).toEqual(selected);
			expect(ws.modelRuntime.getModel("relay", "m")).toBeUndefined();
			const reason =
				'Model relay/m is no longer available: its provider "relay" was unregistered (pi.unregisterProvider). Pick another model (/model, --model) or register the provider again.';
			expect(session.modelUnavailable).toBe(reason);
			// The prompt is refused with it, typed, before anything is written (was: NO_AUTH "No API key found").
			const before = session.messages.length;
			await expect(session.prompt("hi")).rejects.toMatchObject({ code: "PROVIDER", message: reason });
			expect(session.messages).toHaveLength(before);

			relay();
			expect(session.modelUnavailable).toBeUndefined();
		} finally {
			closeSession(session);
		}
	});
});
