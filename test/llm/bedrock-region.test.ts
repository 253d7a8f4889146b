/**
 * `withDefaultProfileRegion` on real shared config files in a temporary HOME: when the default
 * profile's region moves a Bedrock model's endpoint, and every case where pi-ai or the SDK already
 * places the request itself and the model is left as it is.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withDefaultProfileRegion } from "../../src/llm/bedrock-region.js";
import type { Model } from "../../src/llm/types.js";

const bedrock: Model = {
	id: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
	name: "Claude Sonnet 4.5",
	api: "bedrock-converse-stream",
	provider: "amazon-bedrock",
	baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com",
	reasoning: true,
	input: ["text"],
	cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
	contextWindow: 200_000,
	maxTokens: 64_000,
};

let home: string;
beforeEach(() => {
	home = mkdtempSync(join(tmpdir(), "settle-bedrock-region-"));
	mkdirSync(join(home, ".aws"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const aws = (file: "config" | "credentials", text: string) => writeFileSync(join(home, ".aws", file), text);
const baseUrl = (env: NodeJS.ProcessEnv = {}, model: Model = bedrock) =>
	withDefaultProfileRegion(model, { HOME: home, ...env }).baseUrl;

describe("withDefaultProfileRegion", () => {
	it("the [default] region of ~/.aws/config moves the catalogue's us-east-1 endpoint there; comments and nested blocks are skipped", () => {
		aws(
			"config",
			"; written by aws configure\n[profile dev]\nregion = ap-south-1\n\n[default]\ns3 =\n  region = sa-east-1\nregion = eu-west-1 # Ireland\n",
		);
		expect(baseUrl()).toBe("https://bedrock-runtime.eu-west-1.amazonaws.com");
		const fips = { ...bedrock, baseUrl: "https://bedrock-runtime-fips.us-east-1.amazonaws.com" };
		expect(baseUrl({}, fips)).toBe("https://bedrock-runtime-fips.eu-west-1.amazonaws.com");
	});

	it("the region of [default] in ~/.aws/credentials counts when the config file names none; the config file's comes first", () => {
		aws("credentials", "[default]\naws_access_key_id = AKIA\nregion = eu-central-1\n");
		expect(baseUrl()).toBe("https://bedrock-runtime.eu-central-1.amazonaws.com");
		aws("config", "[default]\nregion = cn-north-1\n");
		expect(baseUrl()).toBe("https://bedrock-runtime.cn-north-1.amazonaws.com.cn");
	});

	it("AWS_CONFIG_FILE (with ~/) is read instead of ~/.aws/config", () => {
		aws("config", "[default]\nregion = eu-west-1\n");
		writeFileSync(join(home, "other"), "[profile default]\nregion = ap-northeast-1\n");
		expect(baseUrl({ AWS_CONFIG_FILE: "~/other" })).toBe("https://bedrock-runtime.ap-northeast-1.amazonaws.com");
	});

	it("left as it is: a region or profile variable (pi-ai and the SDK place those), a custom endpoint, another API, no region, a value that is no region name", () => {
		aws("config", "[default]\nregion = eu-west-1\n");
		const catalogue = bedrock.baseUrl;
		expect(baseUrl({ AWS_REGION: "us-west-2" })).toBe(catalogue);
		expect(baseUrl({ AWS_DEFAULT_REGION: "us-west-2" })).toBe(catalogue);
		expect(baseUrl({ AWS_PROFILE: "default" })).toBe(catalogue);
		const vpc = { ...bedrock, baseUrl: "https://vpce-0a1.bedrock-runtime.us-east-1.vpce.amazonaws.com" };
		expect(baseUrl({}, vpc)).toBe(vpc.baseUrl);
		const anthropic = { ...bedrock, api: "anthropic-messages", baseUrl: "https://api.anthropic.com" };
		expect(withDefaultProfileRegion(anthropic, { HOME: home })).toBe(anthropic);
		aws("config", "[default]\noutput = json\n");
		expect(baseUrl()).toBe(catalogue);
		aws("config", "[default]\nregion = evil.example.com/\n");
		expect(baseUrl()).toBe(catalogue);
		rmSync(join(home, ".aws"), { recursive: true });
		expect(baseUrl()).toBe(catalogue);
	});
});

describe("withDefaultProfileRegion: [default] and [profile default] both in the config file", () => {
	it("[profile default] is the default profile whole, wherever it stands, as the SDK reads it: its region, or none when it names none", () => {
		aws("config", "[profile default]\nregion = eu-west-1\n\n[default]\nregion = us-west-2\n");
		expect(baseUrl()).toBe("https://bedrock-runtime.eu-west-1.amazonaws.com");
		aws("config", "[default]\nregion = us-west-2\n\n[profile default]\noutput = json\n");
		expect(baseUrl()).toBe(bedrock.baseUrl);
	});
});
