/**
 * The context a code example may use without setting it up: the few objects a reader of the API
 * already has in hand. Each is declared with its real type (no `any`), so an example that uses one
 * wrongly fails the type check. Everything else an example uses it must declare or import itself.
 */
const DECLARATIONS: Record<string, string> = {
	session: 'import("settle").AgentSession',
	runtime: 'import("settle").AgentSessionRuntime',
	cwd: "string",
	agentDir: "string",
	sessionManager: 'import("settle").SessionManager',
	settingsManager: 'import("settle").SettingsManager',
	resourceLoader: 'import("settle").ResourceLoader',
	modelRuntime: 'import("settle").ModelRuntime',
	model: 'import("settle").Model<import("settle").Api>',
	faux: 'import("settle").FauxProvider',
	agent: 'import("settle").Agent',
	runner: 'import("settle").ExtensionRunner',
	signal: "AbortSignal",
	messages: 'import("settle").AgentMessage[]',
	expect: 'typeof import("vitest").expect',
	client: 'import("settle/rpc").RpcClient',
};

/** Names the prelude declares (an example that uses one is a fragment: type-checked, not run). */
export const PRELUDE_NAMES: ReadonlySet<string> = new Set(Object.keys(DECLARATIONS));

/** The prelude as an ambient script (`prelude.d.ts`) in the scratch dir. */
export const PRELUDE = `${Object.entries(DECLARATIONS)
	.map(([name, type]) => `declare const ${name}: ${type};`)
	.join("\n")}\n`;
