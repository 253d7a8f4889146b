/**
 * The missing-credentials hints of src/llm/provider-env.ts for a user without a home folder: HOME
 * unset and no passwd entry (a container started with `--user 12345`), where Node's `homedir()`
 * throws. A real child process imports the module as root, then takes the uid 12345 (`seteuid`), so
 * its files stay readable whatever the checkout's mode; root only.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "llm", "provider-env.ts");

/**
 * What `cloudCredentialsHint(provider, {})` returns for each of `providers` as the uid 12345 without
 * HOME, or its error: one child process for all of them (each tsx child is ~0.5 s of CPU).
 */
function hintsWithoutHome(providers: string[]): string[] {
	const script = `
		const { cloudCredentialsHint } = await import(${JSON.stringify(MODULE)});
		process.seteuid(12345);
		for (const provider of ${JSON.stringify(providers)}) {
			try {
				console.log(JSON.stringify(String(cloudCredentialsHint(provider, {}))));
			} catch (error) {
				console.log(JSON.stringify("threw: " + error.message));
			}
		}`;
	const env = { ...process.env };
	delete env.HOME;
	const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
		encoding: "utf8",
		env,
	});
	expect(child.stderr).toBe("");
	return child.stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as string);
}

describe("cloud credential hints without a home folder", () => {
	it.runIf(process.getuid?.() === 0)(
		"regression: the missing-key message of any provider became 'uv_os_homedir returned ENOENT' (the Vertex hint's default home was homedir()); now a key provider gets none and Vertex's names the credentials to set",
		() => {
			expect(hintsWithoutHome(["groq", "google-vertex"])).toEqual([
				"undefined",
				"google-vertex takes GOOGLE_CLOUD_API_KEY, or Google application default credentials (`gcloud auth application-default login`, or GOOGLE_APPLICATION_CREDENTIALS naming a key file) with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (a region such as us-central1, or global). Not set here: application default credentials, GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION.",
			]);
		},
	);
});
