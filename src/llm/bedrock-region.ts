/**
 * The Amazon Bedrock region of the default AWS profile, which pi-ai 0.73.1 does not read: with none
 * of AWS_REGION, AWS_DEFAULT_REGION and AWS_PROFILE set it asks us-east-1, though the AWS SDK
 * (and the `aws` command) would take `region` from the `[default]` profile of ~/.aws/config.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Model } from "./types.js";

/** A standard Bedrock runtime endpoint, the form pi-ai pins when no region is configured. */
const STANDARD_ENDPOINT = /^bedrock-runtime(-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;

/**
 * `model` with its Bedrock endpoint moved to the region the default profile names, when pi-ai would
 * otherwise send the request to the catalogue's region: a `bedrock-converse-stream` model on a
 * standard endpoint, and no AWS_REGION, AWS_DEFAULT_REGION or AWS_PROFILE (with AWS_PROFILE pi-ai
 * lets the SDK read that profile's region). Files as the SDK reads them: AWS_CONFIG_FILE, else
 * ~/.aws/config, then AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials. Any other model, or no
 * region found, is returned as it is.
 *
 * @example
 * ```ts
 * const bedrock = { ...model, api: "bedrock-converse-stream", baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com" };
 * // With `[default]\nregion = eu-west-1` in ~/.aws/config and no AWS_REGION / AWS_PROFILE:
 * withDefaultProfileRegion(bedrock).baseUrl; // "https://bedrock-runtime.eu-west-1.amazonaws.com"
 * ```
 */
export function withDefaultProfileRegion(model: Model, env: NodeJS.ProcessEnv = process.env): Model {
	if (model.api !== "bedrock-converse-stream" || env.AWS_REGION || env.AWS_DEFAULT_REGION || env.AWS_PROFILE) {
		return model;
	}
	let host: RegExpExecArray | null;
	try {
		host = STANDARD_ENDPOINT.exec(new URL(model.baseUrl).hostname.toLowerCase());
	} catch {
		return model;
	}
	// A custom endpoint (a VPC endpoint, a proxy) is where the user sends Bedrock's requests: kept.
	if (!host) return model;
	const region = defaultProfileRegion(env);
	if (!region || region === host[2]) return model;
	const suffix = region.startsWith("cn-") ? ".amazonaws.com.cn" : ".amazonaws.com";
	return { ...model, baseUrl: `https://bedrock-runtime${host[1] ?? ""}.${region}${suffix}` };
}

/** The `region` of the default profile in the shared config files (config first), if one is set. */
export function defaultProfileRegion(env: NodeJS.ProcessEnv = process.env): string | undefined {
	const home = env.HOME || env.USERPROFILE || homedir();
	const config = iniProfile(env.AWS_CONFIG_FILE || join(home, ".aws", "config"), home, ["default", "profile default"]);
	const credentials = iniProfile(env.AWS_SHARED_CREDENTIALS_FILE || join(home, ".aws", "credentials"), home, [
		"default",
	]);
	const region = config.region ?? credentials.region;
	// Only a region name goes into the endpoint's host name.
	return region && /^[a-z0-9-]+$/.test(region) ? region : undefined;
}

/**
 * The keys of the default profile's section of an INI file, as the AWS SDK parses it: of the names
 * in `names` the last one the file has is the profile whole (`[profile default]` over `[default]`,
 * wherever each stands); a section repeated adds to its keys.
 */
function iniProfile(path: string, home: string, names: string[]): Record<string, string> {
	let text: string;
	try {
		text = readFileSync(path.startsWith("~/") ? join(home, path.slice(2)) : path, "utf8");
	} catch {
		return {};
	}
	const sections = new Map<string, Record<string, string>>();
	let keys: Record<string, string> | undefined;
	let nested = false;
	for (const raw of text.split(/\r?\n/)) {
		// A `#` or `;` at the start or after a space begins a comment.
		const line = raw.split(/(?:^|\s)[;#]/)[0]!.trim();
		if (line.startsWith("[") && line.endsWith("]")) {
			const name = line.slice(1, -1).trim().replace(/\s+/, " ");
			keys = names.includes(name) ? (sections.get(name) ?? {}) : undefined;
			if (keys) sections.set(name, keys);
			nested = false;
			continue;
		}
		const equals = line.indexOf("=");
		if (!keys || equals <= 0) continue;
		const value = line.slice(equals + 1).trim();
		// `s3 =` opens a nested block: its indented lines are not the profile's own keys.
		if (!value) nested = true;
		else if (nested && raw.trimStart() === raw) nested = false;
		if (value && !nested) keys[line.slice(0, equals).trim()] = value;
	}
	const profile = names.findLast((name) => sections.has(name));
	return profile === undefined ? {} : sections.get(profile)!;
}
