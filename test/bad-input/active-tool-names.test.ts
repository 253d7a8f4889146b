/**
 * `pi.setActiveTools("read")` — one name as a string, easy to write in an extension that jiti loads
 * without type checking — used to be read letter by letter: every letter an unknown tool, ignored,
 * and the session silently left with no tools at all. It is refused now, reported as the command's
 * error, and the tools stay as they were; `session.setActiveToolsByName` likewise.
 */
import { describe, expect, it } from "vitest";
import type { ExtensionError } from "../../src/extensions/types.js";
import type { AgentSession } from "../../src/session/agent-session.js";
import { closeSession, expectSettleError, openSession, thrown, useWorkspace } from "./helpers.js";

const ws = useWorkspace();

/**
 * Runs `test` on a session whose extension command `/<command>` calls `pi.setActiveTools(names)`,
 * with the extension errors reported meanwhile; closes the session after.
 */
async function withToolsCommand(
	command: string,
	names: unknown,
	test: (session: AgentSession, errors: ExtensionError[]) => Promise<void>,
): Promise<void> {
	const errors: ExtensionError[] = [];
	const session = await openSession(ws, {
		extensions: [
			(pi) =>
				pi.registerCommand(command, {
					description: "sets the active tools",
					handler: async () => pi.setActiveTools(names as string[]),
				}),
		],
	});
	try {
		session.extensionRunner.onError((error) => errors.push(error));
		await test(session, errors);
	} finally {
		closeSession(session);
	}
}

describe("active tools given something other than a list of names", () => {
	it('regression: an extension\'s pi.setActiveTools("read") is reported as its error and leaves the tools as they were (was: no tools at all, silently)', async () => {
		await withToolsCommand("readonly", "read", async (session, errors) => {
			const before = session.getActiveToolNames();
			expect(before).toContain("read");
			await session.prompt("/readonly");
			expect(session.getActiveToolNames()).toEqual(before);
			expect(errors.map((error) => error.error)).toEqual([
				'pi.setActiveTools: the tool names must be an array of strings (got "read"). Pass ["read"]. No tool was changed.',
			]);
		});
	});

	it.each([
		["a string", "read"],
		["undefined", undefined],
		["an array with a number", ["read", 7]],
	])(
		"regression: session.setActiveToolsByName with %s throws INVALID_ARGUMENT and changes nothing",
		async (_label, names) => {
			const session = await openSession(ws);
			try {
				const before = session.getActiveToolNames();
				const error = thrown(() => session.setActiveToolsByName(names as string[]));
				expectSettleError(error, "INVALID_ARGUMENT", "session.setActiveToolsByName", "array of strings");
				expect(session.getActiveToolNames()).toEqual(before);
			} finally {
				closeSession(session);
			}
		},
	);
});

/**
 * `pi.setActiveTools(["read", "bahs"])`: pi 0.73.1 drops the unknown name without a word, so an
 * extension author's typo silently takes `bash` away from the model. The known names still apply
 * (pi's behavior); the unknown ones are reported once per call, to `onError` for an extension, as
 * the return value of `session.setActiveToolsByName`.
 */
describe("active tools given a name no tool has", () => {
	it("regression: an extension's pi.setActiveTools with a typo applies the known names and reports the unknown one once, naming the registered tools (was: silent)", async () => {
		await withToolsCommand("mode", ["read", "bahs", "bahs"], async (session, errors) => {
			await session.prompt("/mode");
			expect(session.getActiveToolNames()).toEqual(["read"]);
			const registered = session.getAllTools().map((tool) => tool.name);
			expect(registered).toContain("bash");
			expect(errors).toEqual([
				{
					extensionPath: expect.stringMatching(/^<inline:/),
					event: "set_active_tools",
					error: `pi.setActiveTools: no tool is named "bahs", so it was left out; the other names were applied. The registered tools are ${registered.join(", ")}. Check the spelling, or register the tool before activating it.`,
				},
			]);
		});
	});

	it("regression: an extension's pi.setActiveTools with only a typo says no tool is active now (was: 'the other names were applied', when there were none)", async () => {
		const errors: ExtensionError[] = [];
		const session = await openSession(ws, {
			extensions: [
				(pi) =>
					pi.registerCommand("mode", {
						description: "bash only",
						handler: async () => pi.setActiveTools(["bahs"]),
					}),
			],
		});
		try {
			session.extensionRunner.onError((error) => errors.push(error));
			await session.prompt("/mode");
			expect(session.getActiveToolNames()).toEqual([]);
			const registered = session.getAllTools().map((tool) => tool.name);
			expect(errors.map((error) => error.error)).toEqual([
				`pi.setActiveTools: no tool is named "bahs", so it was left out; no tool is active now. The registered tools are ${registered.join(", ")}. Check the spelling, or register the tool before activating it.`,
			]);
		} finally {
			closeSession(session);
		}
	});

	it("an extension's pi.setActiveTools with known names only reports nothing", async () => {
		await withToolsCommand("mode", ["read", "ls"], async (session, errors) => {
			await session.prompt("/mode");
			expect(session.getActiveToolNames()).toEqual(["read", "ls"]);
			expect(errors).toEqual([]);
		});
	});

	it("regression: session.setActiveToolsByName returns the unknown names and applies the known ones (was: nothing returned)", async () => {
		const session = await openSession(ws);
		try {
			expect(session.setActiveToolsByName(["read", "bahs", "grpe", "bahs"])).toEqual(["bahs", "grpe"]);
			expect(session.getActiveToolNames()).toEqual(["read"]);
			expect(session.setActiveToolsByName(["read", "bash"])).toEqual([]);
			expect(session.getActiveToolNames()).toEqual(["read", "bash"]);
		} finally {
			closeSession(session);
		}
	});
});
