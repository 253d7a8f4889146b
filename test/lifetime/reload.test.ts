/**
 * `session.reload()` repeated in a long-lived host: each reload imports the extension module again
 * (jiti, no module cache) and builds a new runner; the old runners, the old modules' state and
 * their handlers must go, not accumulate.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { type LiveProject, openProject } from "../session/env-helpers.js";
import { CollectionTracker } from "./helpers.js";

interface ReloadProbe {
	track: (target: object, label: string) => void;
	loads: number;
	agentStarts: number;
	pings: number;
}
const g = globalThis as unknown as { __settleLifetimeReload?: ReloadProbe };

/** A TypeScript extension: a handler, a bus listener, a tool and a command, and 1 MB of module state. */
const EXTENSION = `
import type { ExtensionAPI } from "settle";
const probe = (globalThis as any).__settleLifetimeReload;
const load = ++probe.loads;
const moduleState = { load, buffer: new Uint8Array(1024 * 1024) };
probe.track(moduleState, "module" + load);
export default function (pi: ExtensionAPI) {
	probe.track(pi, "api" + load);
	pi.on("agent_start", () => {
		probe.agentStarts++;
		pi.events.emit("lifetime:ping", moduleState.load);
	});
	pi.events.on("lifetime:ping", () => { probe.pings++; });
	pi.registerTool({
		name: "probe_tool",
		label: "probe",
		description: "does nothing",
		parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: String(moduleState.load) }], details: {} }),
	});
	pi.registerCommand("probe", { description: "does nothing", handler: async () => {} });
}
`;

let p: LiveProject | undefined;
afterEach(() => {
	p?.cleanup();
	p = undefined;
	delete g.__settleLifetimeReload;
});

describe("reload", () => {
	it("old runners, extension modules and their handlers are released, not accumulated", async () => {
		const tracker = new CollectionTracker();
		const probe: ReloadProbe = {
			track: (target, label) => tracker.track(target, label),
			loads: 0,
			agentStarts: 0,
			pings: 0,
		};
		g.__settleLifetimeReload = probe;
		p = await openProject({ files: { ".settle/extensions/probe.ts": EXTENSION } });
		const reloads = 8;
		for (let i = 0; i < reloads; i++) {
			tracker.track(p.session.extensionRunner, `runner${i}`);
			await p.session.reload();
		}
		expect(probe.loads).toBe(reloads + 1);

		p.faux.setResponses([fauxAssistantMessage("ok")]);
		await p.session.prompt("hi");
		// One live copy of everything: one handler ran, one bus listener heard it.
		expect({ agentStarts: probe.agentStarts, pings: probe.pings }).toEqual({ agentStarts: 1, pings: 1 });
		expect(p.session.getAllTools().filter((tool) => tool.name === "probe_tool")).toHaveLength(1);
		expect(p.session.extensionRunner.getRegisteredCommands().filter((c) => c.name === "probe")).toHaveLength(1);

		// Every earlier load is collectable; only the current module's state stays.
		const current = reloads + 1;
		const alive = (await tracker.alive()).filter((label) => label !== `api${current}`);
		expect(alive).toEqual([`module${current}`]);
	});
});
