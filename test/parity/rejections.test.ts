import { describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { observe } from "./normalize.js";
import { onBothPeers, type SharedExtension } from "./peers.js";

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

function commandExtension(log: string[]): SharedExtension {
	return (api: ExtensionAPI) => {
		api.registerCommand("note", {
			description: "Records a note",
			handler: async (args) => {
				log.push(`note(${args})`);
			},
		});
	};
}

describe("parity: rejected and intercepted input", () => {
	it("rejects a prompt while streaming without streamingBehavior, and queuing an extension command", async () => {
		const logs: Record<string, string[]> = { pi: [], settle: [] };
		const { pi, settle } = await onBothPeers(
			(name) => ({ extensions: [commandExtension(logs[name] ?? [])] }),
			async (peer) => {
				const errors: string[] = [];
				peer.script([
					async () => {
						await peer.drainEvents();
						await peer.session.prompt("no behavior").catch((error) => errors.push(errorText(error)));
						await peer.session.steer("/note queued").catch((error) => errors.push(errorText(error)));
						await peer.session.followUp("/note queued").catch((error) => errors.push(errorText(error)));
						await peer.prompt("/note while streaming");
						return { text: "done" };
					},
				]);
				await peer.prompt("start");
				await peer.prompt("/note idle args");
				await peer.quiesce();
				return { ...observe(peer), errors, commands: logs[peer.name] };
			},
		);
		expect(pi.errors).toHaveLength(3);
		expect(pi.commands).toEqual(["note(while streaming)", "note(idle args)"]);
		expect(settle).toEqual(pi);
	});
});
