/**
 * Settle's provider → key variable map (src/llm/provider-env.ts) against the real pi-ai 0.73.1,
 * which reads the keys but does not export its map. For every provider pi-ai knows, the variables
 * that alone make `getEnvApiKey(provider)` answer — found by setting each variable pi-ai's
 * env-api-keys module mentions, one at a time, in an environment cleared of all of them — are
 * exactly the ones Settle names, and with all of them set pi-ai takes the first one Settle lists.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getEnvApiKey, getProviders } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
	apiKeyEnvHint,
	apiKeyEnvVars,
	GENERIC_API_KEY_ENV_HINT,
	providersWithApiKeyEnv,
} from "../../src/llm/provider-env.js";

/** Every UPPER_CASE name pi-ai's env-api-keys module mentions (the variables it may read). */
function variablesPiAiMentions(): string[] {
	// pi-ai's package exports only `import` entries: resolve it as ESM.
	const entry = fileURLToPath(import.meta.resolve("@mariozechner/pi-ai"));
	const source = readFileSync(join(dirname(entry), "env-api-keys.js"), "utf8");
	const names = new Set<string>();
	for (const match of source.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)) names.add(match[1]!);
	return [...names].sort();
}

const saved = new Map<string, string | undefined>();

function setEnv(name: string, value: string | undefined): void {
	if (!saved.has(name)) saved.set(name, process.env[name]);
	if (value === undefined) delete process.env[name];
	else process.env[name] = value;
}

afterEach(() => {
	for (const [name, value] of saved) {
		if (value === undefined) delete process.env[name];
		else process.env[name] = value;
	}
	saved.clear();
});

describe("the provider → API key variable map", () => {
	const candidates = variablesPiAiMentions();

	it("pi-ai's module mentions the variables (the scan works)", () => {
		expect(candidates).toEqual(expect.arrayContaining(["GROQ_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "AWS_PROFILE"]));
	});

	it("for every provider pi-ai knows, exactly the variables Settle names make getEnvApiKey answer, first one first", () => {
		const providers = getProviders() as string[];
		// Settle names no provider pi-ai does not know.
		expect(providers).toEqual(expect.arrayContaining(providersWithApiKeyEnv()));
		for (const provider of providers) {
			for (const name of candidates) setEnv(name, undefined);
			const alone: string[] = [];
			for (const name of candidates) {
				setEnv(name, `value-of-${name}`);
				const key = getEnvApiKey(provider);
				if (key !== undefined) {
					alone.push(name);
					// Key variables give their value; credential variables (Bedrock's) say "<authenticated>".
					expect([`value-of-${name}`, "<authenticated>"], `${provider} ${name}`).toContain(key);
				}
				setEnv(name, undefined);
			}
			expect(alone.sort(), provider).toEqual([...(apiKeyEnvVars(provider) ?? [])].sort());
			const named = apiKeyEnvVars(provider);
			if (!named) continue;
			for (const name of named) setEnv(name, `value-of-${name}`);
			expect([`value-of-${named[0]}`, "<authenticated>"], `${provider} precedence`).toContain(getEnvApiKey(provider));
			for (const name of named) setEnv(name, undefined);
		}
	});

	it("the hint names the provider's own variable(s), the generic list for a provider without one", () => {
		expect(apiKeyEnvHint("groq")).toBe("GROQ_API_KEY");
		expect(apiKeyEnvHint("anthropic")).toBe("ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY");
		expect(apiKeyEnvHint("my-proxy")).toBe(GENERIC_API_KEY_ENV_HINT);
		expect(apiKeyEnvHint("toString")).toBe(GENERIC_API_KEY_ENV_HINT);
		expect(apiKeyEnvHint(undefined)).toBe(GENERIC_API_KEY_ENV_HINT);
	});
});
