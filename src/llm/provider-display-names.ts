/**
 * Display names of pi-ai's catalogue providers, as pi 0.73.1's `ModelRegistry.getProviderDisplayName`
 * shows them (`core/provider-display-names.js`). A provider missing here is shown by its id.
 */
export const BUILT_IN_PROVIDER_DISPLAY_NAMES: Readonly<Record<string, string>> = {
	anthropic: "Anthropic",
	"amazon-bedrock": "Amazon Bedrock",
	"azure-openai-responses": "Azure OpenAI Responses",
	cerebras: "Cerebras",
	"cloudflare-ai-gateway": "Cloudflare AI Gateway",
	"cloudflare-workers-ai": "Cloudflare Workers AI",
	deepseek: "DeepSeek",
	fireworks: "Fireworks",
	google: "Google Gemini",
	"google-vertex": "Google Vertex AI",
	groq: "Groq",
	huggingface: "Hugging Face",
	"kimi-coding": "Kimi For Coding",
	mistral: "Mistral",
	minimax: "MiniMax",
	"minimax-cn": "MiniMax (China)",
	moonshotai: "Moonshot AI",
	"moonshotai-cn": "Moonshot AI (China)",
	opencode: "OpenCode Zen",
	"opencode-go": "OpenCode Go",
	openai: "OpenAI",
	openrouter: "OpenRouter",
	"vercel-ai-gateway": "Vercel AI Gateway",
	xai: "xAI",
	zai: "ZAI",
	xiaomi: "Xiaomi MiMo",
	"xiaomi-token-plan-cn": "Xiaomi MiMo Token Plan (China)",
	"xiaomi-token-plan-ams": "Xiaomi MiMo Token Plan (Amsterdam)",
	"xiaomi-token-plan-sgp": "Xiaomi MiMo Token Plan (Singapore)",
};

/**
 * Names of the OAuth (subscription) providers pi-ai 0.73.1 knows; pi prefers them over
 * {@link BUILT_IN_PROVIDER_DISPLAY_NAMES} (so `anthropic` shows as a subscription).
 */
export const OAUTH_PROVIDER_DISPLAY_NAMES: Readonly<Record<string, string>> = {
	anthropic: "Anthropic (Claude Pro/Max)",
	"github-copilot": "GitHub Copilot",
	"openai-codex": "ChatGPT Plus/Pro (Codex Subscription)",
};
