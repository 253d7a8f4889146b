import { existsSync } from "node:fs";
import { join } from "node:path";
import { homeFolder } from "../settings/paths.js";

/**
 * The environment variables pi-ai 0.73.1 reads a provider's key from (its `env-api-keys` module,
 * which does not export the map), so a "no API key" message can name the provider's own variable
 * (`GROQ_API_KEY`) instead of a generic list. test/llm/provider-env.test.ts checks it against the
 * real `getEnvApiKey` for every provider pi-ai knows.
 */

/**
 * Provider → the variables pi-ai takes its key from, in pi-ai's order of precedence (the first set
 * one wins). Providers that authenticate otherwise (Amazon Bedrock's AWS credentials, Google
 * Vertex's application default credentials) list the variable that alone is enough.
 */
const PROVIDER_API_KEY_ENV: Readonly<Record<string, readonly string[]>> = {
	anthropic: ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
	"github-copilot": ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
	openai: ["OPENAI_API_KEY"],
	"azure-openai-responses": ["AZURE_OPENAI_API_KEY"],
	deepseek: ["DEEPSEEK_API_KEY"],
	google: ["GEMINI_API_KEY"],
	"google-vertex": ["GOOGLE_CLOUD_API_KEY"],
	groq: ["GROQ_API_KEY"],
	cerebras: ["CEREBRAS_API_KEY"],
	xai: ["XAI_API_KEY"],
	openrouter: ["OPENROUTER_API_KEY"],
	"vercel-ai-gateway": ["AI_GATEWAY_API_KEY"],
	zai: ["ZAI_API_KEY"],
	mistral: ["MISTRAL_API_KEY"],
	minimax: ["MINIMAX_API_KEY"],
	"minimax-cn": ["MINIMAX_CN_API_KEY"],
	moonshotai: ["MOONSHOT_API_KEY"],
	"moonshotai-cn": ["MOONSHOT_API_KEY"],
	huggingface: ["HF_TOKEN"],
	fireworks: ["FIREWORKS_API_KEY"],
	opencode: ["OPENCODE_API_KEY"],
	"opencode-go": ["OPENCODE_API_KEY"],
	"kimi-coding": ["KIMI_API_KEY"],
	"cloudflare-workers-ai": ["CLOUDFLARE_API_KEY"],
	"cloudflare-ai-gateway": ["CLOUDFLARE_API_KEY"],
	xiaomi: ["XIAOMI_API_KEY"],
	"xiaomi-token-plan-cn": ["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
	"xiaomi-token-plan-ams": ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
	"xiaomi-token-plan-sgp": ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
	// Any one of these (or AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY) makes pi-ai use the AWS SDK's credentials.
	"amazon-bedrock": [
		"AWS_PROFILE",
		"AWS_BEARER_TOKEN_BEDROCK",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_WEB_IDENTITY_TOKEN_FILE",
	],
};

/**
 * The pi-ai version Settle's package.json asks for as a peer (a test keeps them equal). The install
 * hints name it: a plain `npm install @mariozechner/pi-ai` picks the newest release, which npm
 * refuses next to an exact peer (ERESOLVE) once pi-ai moves on.
 */
export const PI_AI_PEER_VERSION = "0.73.1";

/** The command that installs the pi-ai the default model runtime loads (real providers, models.json). */
export const PI_AI_INSTALL_COMMAND = `npm install @mariozechner/pi-ai@${PI_AI_PEER_VERSION}`;

/** The generic list, for a provider pi-ai reads no variable for (a custom one: auth.json or models.json). */
export const GENERIC_API_KEY_ENV_HINT = "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …";

/**
 * The variables pi-ai reads `provider`'s key from (precedence order), or `undefined` when it reads none.
 *
 * @example
 * ```ts
 * apiKeyEnvVars("groq"); // ["GROQ_API_KEY"]
 * apiKeyEnvVars("my-proxy"); // undefined
 * ```
 */
export function apiKeyEnvVars(provider: string): readonly string[] | undefined {
	return Object.hasOwn(PROVIDER_API_KEY_ENV, provider) ? PROVIDER_API_KEY_ENV[provider] : undefined;
}

/** Every provider with a variable in {@link apiKeyEnvVars}. */
export function providersWithApiKeyEnv(): string[] {
	return Object.keys(PROVIDER_API_KEY_ENV);
}

/**
 * What to name in a missing-key message: the provider's own variable(s) (`GROQ_API_KEY`,
 * `ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY`), or the generic list for a provider without one.
 *
 * @example
 * ```ts
 * apiKeyEnvHint("groq"); // "GROQ_API_KEY"
 * apiKeyEnvHint(undefined); // "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …"
 * ```
 */
export function apiKeyEnvHint(provider: string | undefined): string {
	const vars = provider === undefined ? undefined : apiKeyEnvVars(provider);
	return vars ? vars.join(" or ") : GENERIC_API_KEY_ENV_HINT;
}

/**
 * Names other tools read for Vertex's project and location (opencode#7996: GOOGLE_CLOUD_PROJECT_ID
 * was set, nothing said it is not read) → the name pi-ai reads.
 */
const VERTEX_LOOKALIKES: Readonly<Record<string, string>> = {
	GOOGLE_CLOUD_PROJECT_ID: "GOOGLE_CLOUD_PROJECT",
	GOOGLE_VERTEX_PROJECT: "GOOGLE_CLOUD_PROJECT",
	GCP_PROJECT: "GOOGLE_CLOUD_PROJECT",
	GCP_PROJECT_ID: "GOOGLE_CLOUD_PROJECT",
	VERTEX_PROJECT: "GOOGLE_CLOUD_PROJECT",
	GOOGLE_VERTEX_LOCATION: "GOOGLE_CLOUD_LOCATION",
	GOOGLE_VERTEX_REGION: "GOOGLE_CLOUD_LOCATION",
	VERTEX_LOCATION: "GOOGLE_CLOUD_LOCATION",
	GOOGLE_CLOUD_REGION: "GOOGLE_CLOUD_LOCATION",
};

/**
 * What a provider that signs in with cloud credentials rather than a key needs, as a sentence for
 * a missing-credentials message, or `undefined` for a provider a key alone serves. Google Vertex
 * takes a key or application default credentials with a project and a location: the sentence names
 * those of them unset here, and a look-alike variable set in their place. Amazon Bedrock takes AWS
 * credentials only (pi-ai sends no auth.json key to it): the sentence names the variables that count.
 *
 * @example
 * ```ts
 * cloudCredentialsHint("google-vertex", { GOOGLE_CLOUD_PROJECT_ID: "my-project" });
 * // "google-vertex takes GOOGLE_CLOUD_API_KEY, or … Not set here: …; GOOGLE_CLOUD_PROJECT_ID is set, but the name read is GOOGLE_CLOUD_PROJECT."
 * cloudCredentialsHint("groq"); // undefined
 * ```
 */
export function cloudCredentialsHint(
	provider: string,
	env: NodeJS.ProcessEnv = process.env,
	// Not homedir(): without HOME and a passwd entry it throws, and the missing-key message was lost.
	home: string | undefined = homeFolder(),
): string | undefined {
	if (provider === "google-vertex") {
		const missing: string[] = [];
		const adcFile = env.GOOGLE_APPLICATION_CREDENTIALS;
		if (adcFile) {
			if (!existsSync(adcFile)) missing.push(`the file GOOGLE_APPLICATION_CREDENTIALS names (${adcFile})`);
		} else if (
			home === undefined ||
			!existsSync(join(home, ".config", "gcloud", "application_default_credentials.json"))
		) {
			missing.push("application default credentials");
		}
		if (!env.GOOGLE_CLOUD_PROJECT && !env.GCLOUD_PROJECT) missing.push("GOOGLE_CLOUD_PROJECT");
		if (!env.GOOGLE_CLOUD_LOCATION) missing.push("GOOGLE_CLOUD_LOCATION");
		const lookalikes = Object.entries(VERTEX_LOOKALIKES)
			.filter(([name, read]) => env[name] && missing.includes(read))
			.map(([name, read]) => `${name} is set, but the name read is ${read}`);
		return (
			"google-vertex takes GOOGLE_CLOUD_API_KEY, or Google application default credentials " +
			"(`gcloud auth application-default login`, or GOOGLE_APPLICATION_CREDENTIALS naming a key file) " +
			"with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (a region such as us-central1, or global)." +
			(missing.length > 0 ? ` Not set here: ${missing.join(", ")}` : "") +
			(lookalikes.length > 0 ? `; ${lookalikes.join("; ")}.` : missing.length > 0 ? "." : "")
		);
	}
	if (provider === "amazon-bedrock") {
		const half =
			env.AWS_ACCESS_KEY_ID && !env.AWS_SECRET_ACCESS_KEY
				? " AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY."
				: env.AWS_SECRET_ACCESS_KEY && !env.AWS_ACCESS_KEY_ID
					? " AWS_SECRET_ACCESS_KEY is set without AWS_ACCESS_KEY_ID."
					: "";
		return (
			"amazon-bedrock signs in with AWS credentials, not with a key in auth.json: set AWS_PROFILE " +
			"(a profile of ~/.aws/config or ~/.aws/credentials: AWS_PROFILE=default for the keys `aws configure` wrote), " +
			"AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key); in a container, " +
			"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, AWS_CONTAINER_CREDENTIALS_FULL_URI or AWS_WEB_IDENTITY_TOKEN_FILE. " +
			`The region comes from AWS_REGION or AWS_DEFAULT_REGION, else from the profile's region in ~/.aws/config (AWS_CONFIG_FILE; AWS_PROFILE's profile, else [default]), else us-east-1.${half}`
		);
	}
	return undefined;
}

/** Bedrock's refusals of the AWS credentials themselves (not of a model or a field). */
const AWS_CREDENTIALS_REFUSED =
	/\b(?:ExpiredToken(?:Exception)?|UnrecognizedClientException|InvalidSignatureException)\b|security token included in the request is (?:expired|invalid)|could not load credentials from any providers/i;

/**
 * What to do when Amazon Bedrock (or the AWS SDK before it) refused the AWS credentials as expired
 * or invalid: which credentials were sent — pi-ai sends AWS_BEARER_TOKEN_BEDROCK first, then the
 * SDK takes AWS_PROFILE's profile over the key variables — and how to renew them (opencode#29106:
 * the raw `ExpiredTokenException` said nothing of `aws sso login`). `undefined` for any other text.
 *
 * @example
 * ```ts
 * awsCredentialsRefusedNote("ExpiredTokenException: The security token included in the request is expired", { AWS_PROFILE: "dev" });
 * // "Amazon Bedrock refused the AWS credentials of the profile dev (AWS_PROFILE) as expired or invalid: renew them (`aws sso login --profile dev` for a single sign-on profile), then send the prompt again."
 * ```
 */
export function awsCredentialsRefusedNote(errorText: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
	if (!AWS_CREDENTIALS_REFUSED.test(errorText)) return undefined;
	const lead = "Amazon Bedrock refused the AWS credentials";
	const after = "then send the prompt again.";
	if (env.AWS_BEARER_TOKEN_BEDROCK && env.AWS_BEDROCK_SKIP_AUTH !== "1") {
		return `${lead} in AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key) as expired or invalid: replace it with a current key (short-term keys last 12 hours at most), ${after}`;
	}
	if (env.AWS_PROFILE) {
		return `${lead} of the profile ${env.AWS_PROFILE} (AWS_PROFILE) as expired or invalid: renew them (\`aws sso login --profile ${env.AWS_PROFILE}\` for a single sign-on profile), ${after}`;
	}
	if (env.AWS_ACCESS_KEY_ID) {
		return `${lead} in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY as expired or invalid: set current ones (temporary keys also need their AWS_SESSION_TOKEN), ${after}`;
	}
	return `${lead} as expired or invalid: renew them (\`aws sso login\` for a single sign-on profile), or set AWS_PROFILE to a profile that has current ones, ${after}`;
}

/** Bedrock's refusal of a base model id that only inference profiles serve. */
const ON_DEMAND_REFUSED = /on-demand throughput isn.t supported/i;

/**
 * What to pick when Bedrock refused `modelId` as served through inference profiles only
 * (cline#2482: `anthropic.claude-3-7-sonnet-…` picked from a list, a 400 saying "Retry your request
 * with the ID or ARN of an inference profile", no id given): the ids of `knownIds` that are
 * `modelId` behind a geography prefix (`us.`, `eu.`, `global.`), as `--model` takes them.
 * `undefined` for any other text.
 *
 * @example
 * ```ts
 * inferenceProfileNote(
 *   "Invocation of model ID anthropic.claude-x-v1:0 with on-demand throughput isn't supported.",
 *   "amazon-bedrock",
 *   "anthropic.claude-x-v1:0",
 *   ["anthropic.claude-x-v1:0", "us.anthropic.claude-x-v1:0"],
 * );
 * // "amazon-bedrock serves anthropic.claude-x-v1:0 through inference profiles only: select one, the prefix being where the request may run: amazon-bedrock/us.anthropic.claude-x-v1:0."
 * ```
 */
export function inferenceProfileNote(
	errorText: string,
	provider: string,
	modelId: string,
	knownIds: readonly string[],
): string | undefined {
	if (!ON_DEMAND_REFUSED.test(errorText)) return undefined;
	const profiles = knownIds.filter(
		(id) => /^[a-z]+(?:-[a-z]+)?\.$/.test(id.slice(0, id.length - modelId.length)) && id.endsWith(modelId),
	);
	const lead = `${provider} serves ${modelId} through inference profiles only`;
	if (profiles.length === 0) {
		return `${lead}: select its id with a geography prefix (us., eu., global.) or an inference profile's ARN, as a models.json model of ${provider}.`;
	}
	return `${lead}: select one, the prefix being where the request may run: ${profiles.map((id) => `${provider}/${id}`).join(", ")}.`;
}

/**
 * The provider a `NO_AUTH` SettleError is about (its `details.provider`, else pi's first line
 * `No API key found for <provider>.`), or `undefined`.
 *
 * @example
 * ```ts
 * const error = new SettleError("NO_AUTH", "No API key found for groq.", { details: { provider: "groq" } });
 * apiKeyEnvHint(providerOfAuthError(error)); // "GROQ_API_KEY"
 * ```
 */
export function providerOfAuthError(error: { message: string; details?: Record<string, unknown> }): string | undefined {
	const provider = error.details?.provider;
	if (typeof provider === "string") return provider;
	return /^No API key found for (\S+)\./.exec(error.message)?.[1];
}

/**
 * The environment variable a configured key or header value names: `NAME`, `$NAME` or `${NAME}`
 * (the `$` forms later pi's docs give, pi#9258; sent as they stand they are never a key). Any other
 * value is returned as it is. Shared by models.json `apiKey`/headers and auth.json keys.
 */
export function environmentName(value: string): string {
	return /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/.exec(value)?.slice(1).find(Boolean) ?? value;
}

/**
 * A configured key or header value as pi's `resolveConfigValue` reads it (`!command` aside): the
 * value of the environment variable it names ({@link environmentName}) when that variable is set
 * and not empty, whatever the name's case; otherwise the value itself, a literal. Shared by
 * models.json `apiKey`/headers and auth.json keys.
 *
 * @example
 * ```ts
 * process.env.my_gateway_key = "sk-from-env";
 * resolveConfiguredValue("my_gateway_key"); // "sk-from-env"
 * resolveConfiguredValue("$my_gateway_key"); // "sk-from-env"
 * resolveConfiguredValue("sk-literal"); // "sk-literal" (no such variable)
 * ```
 */
export function resolveConfiguredValue(value: string): string {
	return process.env[environmentName(value)] || value;
}

/**
 * The variable a whole `$NAME` / `${NAME}` value names when that variable is unset or blank, else
 * undefined. Such a value is never a key: sent as it stands it only earns a 401 that blames the key
 * (opencode#34388), so it counts as no key and the next source (or "No API key") applies.
 *
 * @example
 * ```ts
 * delete process.env.MY_GATEWAY_KEY;
 * unsetVariableOf("$MY_GATEWAY_KEY"); // "MY_GATEWAY_KEY"
 * unsetVariableOf("sk-literal"); // undefined
 * ```
 */
export function unsetVariableOf(value: string): string | undefined {
	const name = environmentName(value);
	if (name === value) return undefined;
	return process.env[name]?.trim() ? undefined : name;
}
