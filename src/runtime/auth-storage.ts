/**
 * `auth.json` in the agent dir: API keys per provider, in pi's format
 * (`{ "anthropic": { "type": "api_key", "key": "sk-…" } }`), so a pi agent dir can be shared.
 * The file is written with mode 0600 (temp file + rename, under a lock); a file that cannot be
 * parsed is reported with a typed error naming it and is never overwritten.
 */
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { errorMessage, SettleError } from "../errors.js";
import type { CredentialSource } from "../llm/pi-ai.js";
import { resolveConfiguredValue, unsetVariableOf } from "../llm/provider-env.js";
import { readJsonObjectFile, withFileLock, writeFileAtomic } from "../settings/json-file.js";
import { getDefaultAgentDir } from "../settings/paths.js";
import { makeFolders } from "../store/folders.js";

/** File name of the credentials file inside the agent dir. */
export const AUTH_FILE_NAME = "auth.json";

/** One stored credential (pi's shape). OAuth credentials are kept but not used by Settle. */
export type StoredCredential = { type: "api_key"; key: string } | { type: "oauth"; [field: string]: unknown };

/**
 * Stored API keys. `key` values are pi-compatible: the name of a set environment variable is
 * replaced by its value, anything else is the key itself. pi's `!command` keys are not run and not
 * used (never sent as a key): {@link getWarnings} names them, and the provider's environment variable applies.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 *
 * const auth = AuthStorage.create(join(agentDir, "auth.json"));
 * auth.set("anthropic", "sk-ant-…"); // written with mode 0600
 * auth.getApiKey("anthropic");
 * ```
 */
export class AuthStorage implements CredentialSource {
	/** The file, or undefined for {@link inMemory}. */
	readonly path: string | undefined;
	private data: Record<string, unknown> = {};
	private problem: SettleError | undefined;
	/** The file's identity and times when last read: another program's save changes it. */
	private readVersion: string | undefined;

	private constructor(path: string | undefined, data: Record<string, unknown> = {}) {
		this.path = path;
		if (path) this.reload();
		else this.data = { ...data };
	}

	/**
	 * Reads `path` (missing is fine), by default `auth.json` in the default agent folder
	 * (`$SETTLE_AGENT_DIR` or `~/.settle/agent`), as pi's `AuthStorage.create()` reads its own.
	 * Must not throw: a broken file is reported by {@link getError}.
	 */
	static create(path: string = join(getDefaultAgentDir(), AUTH_FILE_NAME)): AuthStorage {
		return new AuthStorage(resolve(path));
	}

	/** Credentials in memory only (tests, embedding). */
	static inMemory(keys: Record<string, string> = {}): AuthStorage {
		const data: Record<string, unknown> = {};
		for (const [provider, key] of Object.entries(keys)) data[provider] = { type: "api_key", key };
		return new AuthStorage(undefined, data);
	}

	/** Re-reads the file. Must not throw. */
	reload(): void {
		if (!this.path) return;
		this.readVersion = fileVersion(this.path);
		const read = readJsonObjectFile(this.path);
		if (read.status === "ok") {
			this.data = read.value;
			this.problem = undefined;
		} else if (read.status === "missing") {
			this.data = {};
			this.problem = undefined;
		} else {
			this.data = {};
			this.problem = unreadableError(this.path, read.reason);
		}
	}

	/**
	 * Reads the file again when another program saved it since the last read (a key rotated in an
	 * editor, stored from another terminal), so the next request carries it without a restart. A file
	 * caught mid-save (empty, not JSON yet) keeps the keys last read.
	 */
	private readAgainIfChanged(): void {
		if (!this.path) return;
		const version = fileVersion(this.path);
		if (version === this.readVersion) return;
		this.readVersion = version;
		const read = readJsonObjectFile(this.path);
		if (read.status === "missing") this.data = {};
		else if (read.status === "ok" && !version.endsWith(":0")) this.data = read.value;
		else return;
		this.problem = undefined;
	}

	/**
	 * Why the file cannot be used (`INVALID_SETTINGS`, naming the file), or undefined. Until the file
	 * is fixed, an SDK host still gets keys from environment variables; the `settle` command refuses
	 * to start (pi#7779: its message used to promise that environment keys still work).
	 */
	getError(): SettleError | undefined {
		return this.problem;
	}

	/**
	 * Entries of a readable file that hold no usable credential (e.g. `"key": 42`), one message each
	 * naming the file, the provider and the shape to write; [] when all are usable. Such a provider
	 * would otherwise only show up later as "No API key". Must not throw.
	 *
	 * @example
	 * ```ts
	 * for (const warning of AuthStorage.create(`${agentDir}/auth.json`).getWarnings()) console.warn(warning);
	 * ```
	 */
	getWarnings(): string[] {
		const warnings: string[] = [];
		for (const [provider, credential] of Object.entries(this.data)) {
			const problem = credentialProblem(credential);
			if (problem) {
				warnings.push(
					`${this.path ?? "auth.json"}: the credential of "${provider}" is not usable (${problem}). Write { "type": "api_key", "key": "<the key or the name of an environment variable>" }.`,
				);
			}
		}
		return warnings;
	}

	/** The API key of `provider`, or undefined (none, OAuth only, or the file is broken). Must not throw. */
	getApiKey(provider: string): string | undefined {
		this.readAgainIfChanged();
		const credential = this.data[provider];
		let key: unknown;
		if (typeof credential === "string") key = credential;
		else if (credential && typeof credential === "object" && (credential as { type?: unknown }).type === "api_key") {
			key = (credential as { key?: unknown }).key;
		}
		if (typeof key !== "string" || key.trim() === "") return undefined;
		// pi's `!command` key (pi#9245): Settle runs no command, and the command's text is no key.
		if (key.startsWith("!")) return undefined;
		// `$NAME` with NAME unset is no key: the environment's own key applies (opencode#34388).
		if (unsetVariableOf(key)) return undefined;
		// As pi's resolveConfigValue: a set variable's name (any case), or `$NAME` / `${NAME}` as in models.json (pi#9258).
		return resolveConfiguredValue(key);
	}

	/**
	 * Whether `provider`'s stored credential is an OAuth login (pi's `/login`), which Settle keeps
	 * but does not use.
	 * @example
	 * ```ts
	 * const auth = AuthStorage.create(); // the default agent folder's auth.json
	 * if (auth.hasOAuth("anthropic") && !auth.getApiKey("anthropic")) console.warn("pi's login is not a key for Settle");
	 * ```
	 */
	hasOAuth(provider: string): boolean {
		this.readAgainIfChanged();
		const credential = this.data[provider];
		return typeof credential === "object" && credential !== null && (credential as { type?: unknown }).type === "oauth";
	}

	/** Providers with a stored credential. */
	list(): string[] {
		this.readAgainIfChanged();
		return Object.keys(this.data);
	}

	/**
	 * Stores an API key (file mode 0600). Throws `INVALID_SETTINGS` (file untouched) when the
	 * existing file cannot be parsed, `IO` when it cannot be written.
	 */
	set(provider: string, key: string): void {
		this.update((current) => {
			current[provider] = { type: "api_key", key };
		});
	}

	/** Removes a provider's credential. Same errors as {@link set}. */
	remove(provider: string): void {
		this.update((current) => {
			delete current[provider];
		});
	}

	private update(mutate: (current: Record<string, unknown>) => void): void {
		const path = this.path;
		if (!path) {
			mutate(this.data);
			return;
		}
		try {
			makeFolders(dirname(path), { mode: 0o700 });
		} catch (error) {
			const reason = `cannot create ${dirname(path)}: ${errorMessage(error)}`;
			const hint = "Point SETTLE_AGENT_DIR (or the path given to AuthStorage.create) at a writable folder.";
			throw new SettleError("IO", `Cannot save credentials: ${reason}. ${hint}`, {
				cause: error,
				details: { path },
			});
		}
		withFileLock(path, () => {
			const read = readJsonObjectFile(path);
			if (read.status === "malformed" || read.status === "unreadable") throw unreadableError(path, read.reason);
			const value = read.status === "ok" ? read.value : {};
			mutate(value);
			writePrivateFile(path, `${JSON.stringify(value, null, 2)}\n`);
			this.readVersion = fileVersion(path);
			this.data = value;
			this.problem = undefined;
		});
	}
}

/** The file's inode, change and modification times (ns) and size (last, after ":"); "missing" when absent. */
function fileVersion(path: string): string {
	try {
		const stat = statSync(path, { bigint: true });
		return `${stat.ino}:${stat.ctimeNs}:${stat.mtimeNs}:${stat.size}`;
	} catch (error) {
		return `missing: ${errorMessage(error)}`;
	}
}

/** Why a stored credential cannot give a key, or undefined when it can (or is OAuth, kept for pi). */
function credentialProblem(credential: unknown): string | undefined {
	if (typeof credential === "string") return keyProblem(credential);
	if (credential === null || typeof credential !== "object" || Array.isArray(credential)) {
		return `expected an object, got ${credential === null ? "null" : Array.isArray(credential) ? "an array" : typeof credential}`;
	}
	const { type, key } = credential as { type?: unknown; key?: unknown };
	if (type === "oauth") return undefined;
	if (type !== "api_key") return `"type" must be "api_key", got ${JSON.stringify(type) ?? "nothing"}`;
	if (typeof key !== "string") return `"key" must be a string, got ${key === null ? "null" : typeof key}`;
	return keyProblem(key);
}

function keyProblem(key: string): string | undefined {
	if (key.trim() === "") return "the key is empty";
	if (key.startsWith("!")) {
		return "it is a pi `!command`, which Settle does not run, so the provider's environment variable is used instead";
	}
	const unset = unsetVariableOf(key);
	if (unset)
		return `it names the environment variable ${unset}, which is not set, so the next source (the provider's environment variable, models.json's apiKey) is used instead`;
	return undefined;
}

function unreadableError(path: string, reason: string): SettleError {
	return new SettleError(
		"INVALID_SETTINGS",
		`Cannot read credentials from ${path}: ${reason}. Settle never overwrites a file it cannot parse; fix or delete it.`,
		{ details: { path } },
	);
}

/** Writes `text` to `path` readable by its owner only (0600), atomically, through a symlink to its target. */
function writePrivateFile(path: string, text: string): void {
	writeFileAtomic(path, text, 0o600);
}
