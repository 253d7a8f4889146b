/**
 * pi#8832: a host that binds extensions without any callback (`bindExtensions({})`, as a headless
 * SDK host does) then calls `reload()`: pi tears the old extensions down (`session_shutdown
 * {reason:"reload"}`) but, finding none of the optional callbacks set, never sends the new ones
 * `session_start {reason:"reload"}` or `resources_discover` — an extension that sets itself up on
 * `session_start` stays unconfigured after every reload. What the user should see: after a bound
 * session's reload, the new extensions start; a session never bound stays without `session_start`.
 *
 * pi#7816: `/reload` while an extension command still runs (it awaits a timer); the command then
 * uses its ctx, stale after the reload, and throws. pi's maintainers: that error is the signal an
 * extension must cooperate with `session_shutdown`. What the user should see: that error, reported
 * like any command's error (`command:<name>`), and a session that goes on answering.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { InMemoryModelRuntime } from "../../src/llm/model-runtime.js";
import { DefaultResourceLoader } from "../../src/resources/resource-loader.js";
import { createAgentSession } from "../../src/runtime/sdk.js";
import { createAgentSessionServices } from "../../src/runtime/services.js";
import { SettingsManager } from "../../src/settings/settings-manager.js";
import { SessionManager } from "../../src/store/session-manager.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { diskSessionsPerTest } from "./disk-harness.js";
import { gate, script } from "./helpers.js";

let h: Harness | undefined;
/** Project folders a test made itself, removed after it. */
const tempDirs: string[] = [];
afterEach(() => {
	h?.cleanup();
	h = undefined;
	for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Records each instance's lifecycle: `<instance>:<event>:<reason>`. */
function lifecycleRecorder(log: string[]) {
	let instances = 0;
	return (pi: ExtensionAPI) => {
		const instance = ++instances;
		pi.on("session_start", (event) => void log.push(`${instance}:start:${event.reason}`));
		pi.on("session_shutdown", (event) => void log.push(`${instance}:shutdown:${event.reason}`));
		pi.on("resources_discover", (event) => {
			log.push(`${instance}:discover:${event.reason}`);
			return undefined;
		});
	};
}

describe("pi#8832: reload() after bindExtensions({}) skips the new extensions' session_start", () => {
	it("pi#8832: a session bound with bindExtensions({}) reloads: the old instance shuts down, the new one gets session_start and resources_discover (reason reload)", async () => {
		const log: string[] = [];
		h = await createHarness({ bindExtensions: false, extensionFactories: [lifecycleRecorder(log)] });
		await h.session.bindExtensions({});
		expect(log).toEqual(["1:start:startup", "1:discover:startup"]);
		await h.session.reload();
		expect(log).toEqual([
			"1:start:startup",
			"1:discover:startup",
			"1:shutdown:reload",
			"2:start:reload",
			"2:discover:reload",
		]);
		// Twice in a row: each new instance starts.
		await h.session.reload();
		expect(log.slice(5)).toEqual(["2:shutdown:reload", "3:start:reload", "3:discover:reload"]);
	});

	it("pi#8832: a session never bound reloads without sending session_start (as pi: the host has not started its extensions)", async () => {
		const log: string[] = [];
		h = await createHarness({ bindExtensions: false, extensionFactories: [lifecycleRecorder(log)] });
		await h.session.reload();
		expect(log).toEqual(["1:shutdown:reload"]);
	});
});

describe("pi#7816: reload while an extension command is in flight", () => {
	it("pi#7816: a command that uses its ctx after a reload it waited through: the stale-context error is reported as the command's (command:<name>), the reload and the command's prompt resolve, and the session answers", async () => {
		const entered = gate();
		const resume = gate();
		h = await createHarness({
			persistence: "disk",
			extensionFactories: [
				(pi: ExtensionAPI) => {
					pi.registerCommand("pause", {
						description: "waits, then reads the branch",
						handler: async (_args, ctx) => {
							entered.release();
							await resume.promise;
							ctx.sessionManager.getBranch();
						},
					});
				},
			],
		});
		script(h, [fauxAssistantMessage("still answering")]);
		const command = h.session.prompt("/pause");
		await entered.promise;
		// A command runs outside any agent run: the session is idle and the reload goes ahead (as in pi).
		expect(h.session.isIdle).toBe(true);
		await h.session.reload();
		resume.release();
		await command;
		expect(h.extensionErrors).toHaveLength(1);
		expect(h.extensionErrors).toMatchObject([
			{
				extensionPath: "command:pause",
				event: "command",
				error: expect.stringContaining("This extension ctx is stale after session replacement or reload"),
			},
		]);
		await h.session.prompt("are you there?");
		expect(h.session.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});

describe("session.reload() read the settings files twice (once itself, once through the resource loader)", () => {
	const sessions = diskSessionsPerTest();

	/** A project with a global settings.json holding `settings`; returns its folders and the file. */
	function projectWithSettings(settings: Record<string, unknown>) {
		const project = mkdtempSync(join(tmpdir(), "settle-reload-settings-"));
		tempDirs.push(project);
		const agentDir = join(project, "agent");
		mkdirSync(agentDir);
		const settingsFile = join(agentDir, "settings.json");
		writeFileSync(settingsFile, JSON.stringify(settings));
		return { project, agentDir, settingsFile };
	}

	it("createAgentSessionServices and createAgentSession read settings.json once at startup: its problem is reported once by drainErrors() (the loader read the just-made settings again)", async () => {
		const { project, agentDir } = projectWithSettings({ toolExecution: "serial" });
		const services = await createAgentSessionServices({
			cwd: project,
			agentDir,
			modelRuntime: new InMemoryModelRuntime([]),
		});
		expect(services.settingsManager.drainErrors()).toEqual([
			expect.objectContaining({
				scope: "global",
				error: expect.objectContaining({ message: expect.stringContaining('"toolExecution"') }),
			}),
		]);
		const { session } = await createAgentSession({
			cwd: project,
			agentDir,
			modelRuntime: new InMemoryModelRuntime([]),
			sessionManager: SessionManager.inMemory(project),
		});
		try {
			expect(session.settingsManager.drainErrors()).toHaveLength(1);
		} finally {
			session.dispose();
		}
	});

	it("session.reload() reads settings.json once: its problem is reported once by drainErrors() (pi 0.73.1 reads it twice and reports it twice), and the reloaded value applies", async () => {
		const { project, agentDir, settingsFile } = projectWithSettings({ toolExecution: "serial" });
		const settingsManager = SettingsManager.create(project, agentDir);
		const resourceLoader = new DefaultResourceLoader({ cwd: project, agentDir, settingsManager, noExtensions: true });
		await resourceLoader.reload();
		const { session } = await sessions.session({ cwd: project, agentDir, settingsManager, resourceLoader });
		settingsManager.drainErrors();

		writeFileSync(settingsFile, JSON.stringify({ toolExecution: "serial", steeringMode: "all" }));
		await session.reload();
		expect(settingsManager.drainErrors()).toEqual([
			expect.objectContaining({
				scope: "global",
				error: expect.objectContaining({ message: expect.stringContaining('"toolExecution"') }),
			}),
		]);
		expect(session.steeringMode).toBe("all");
	});
});
