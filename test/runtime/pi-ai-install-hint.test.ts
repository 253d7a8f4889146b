/**
 * The MISSING_DEPENDENCY hint for pi-ai names the version settle's package.json asks for as a peer:
 * `npm install @mariozechner/pi-ai` alone takes the newest release, which npm refuses (ERESOLVE)
 * next to settle's exact peer once pi-ai publishes a newer one.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadPiAi, PI_AI_PACKAGE, piAiNotInstalledError } from "../../src/llm/pi-ai.js";

const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
	peerDependencies: Record<string, string>;
};

describe("the pi-ai install hint", () => {
	it("names the peer version of package.json, for a missing and for an incompatible pi-ai", async () => {
		const peer = packageJson.peerDependencies[PI_AI_PACKAGE];
		expect(peer).toMatch(/^\d+\.\d+\.\d+$/); // an exact pin: the hint can name it as is
		const install = `\`npm install ${PI_AI_PACKAGE}@${peer}\``;
		expect(piAiNotInstalledError(new Error("Cannot find package")).message).toContain(install);
		const incompatible = await loadPiAi(async () => ({ getProviders: () => [] })).catch((error: Error) => error);
		expect((incompatible as Error).message).toContain(
			"the installed package has no getModels, streamSimple, getEnvApiKey",
		);
		expect((incompatible as Error).message).toContain(install);
	});
});
