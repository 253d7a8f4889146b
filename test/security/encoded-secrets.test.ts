/**
 * Risk: a proxy or provider echoes the key it was sent not as it was sent but encoded — the
 * `Authorization: Basic base64(user:key)` header a proxy built from it, the key URL-encoded in a
 * query string it logs (`?key=sk%2Fab%2B…`), base64url in a token — and the exact-value redaction
 * let those through to the session file, `--json` lines and stderr, from which anyone decodes the
 * key. Settle also redacts the URL-encoded forms and the part of a base64 text that the key alone
 * decides (at each of the three offsets the key may sit at), leaving at most 2 of the key's bytes
 * encoded on each side. Real `settle` processes against a local OpenAI-format endpoint; the
 * base64 bound is a property over keys, user names and what follows.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets, requestSecrets } from "../../src/llm/redact.js";
import { runSettleAsync, useCliProject, writeLocalProvider } from "../cli/helpers.js";
import { openAiError } from "../llm/wire/openai.js";
import { useWireServer } from "../llm/wire/server.js";

const cli = useCliProject("settle-sec-encoded-secrets-");

// A key with characters that URL-encoding changes (as some providers' keys have: base64 alphabets).
const KEY = "sk-pr0xy/Key+With=Specials_0123456789";
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

const server = useWireServer();

/** Every form of KEY a proxy may echo, each of which gives the key back to whoever reads it. */
const ECHOED_FORMS = {
	basic: b64(`proxy-user:${KEY}`),
	basicShifted: b64(`me:${KEY}`),
	url: encodeURIComponent(KEY),
	urlLower: encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
	base64url: b64url(KEY),
};

describe("a key echoed encoded is redacted too", () => {
	it("Basic credentials, a URL-encoded query and base64url: not in --json, stderr or the session file", async () => {
		writeLocalProvider(cli.agentDir, `${server.url}/v1`, {
			apiKey: KEY,
			models: [{ id: "m1", name: "M1", contextWindow: 100000, maxTokens: 1000 }],
		});
		writeFileSync(join(cli.agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false } }));
		const echo =
			`proxy refused Authorization: Basic ${ECHOED_FORMS.basic} (or Basic ${ECHOED_FORMS.basicShifted}) ` +
			`for GET /v1/models?key=${ECHOED_FORMS.url}&k2=${ECHOED_FORMS.urlLower} token ${ECHOED_FORMS.base64url}`;
		server.reply(openAiError(401, echo, "invalid_request_error"));
		const { code, stdout, stderr } = await runSettleAsync(["--model", "local/m1", "--json", "hi"], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		expect(code).toBe(4);
		expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);

		const root = join(cli.agentDir, "sessions");
		const [name] = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((n) => n.endsWith(".jsonl"));
		const outputs = { stdout, stderr, "session file": readFileSync(join(root, name!), "utf8") };
		expect(outputs["session file"]).toContain("proxy refused Authorization: Basic ");
		for (const [where, content] of Object.entries(outputs)) {
			for (const [form, text] of Object.entries({ key: KEY, ...ECHOED_FORMS })) {
				expect({ where, form, found: content.includes(text) }).toEqual({ where, form, found: false });
			}
			// What is left of the Basic credentials decodes to the user name and at most 2 bytes of the key.
			for (const [, left] of content.matchAll(/Basic ([A-Za-z0-9+/]*)\[redacted\]/g)) {
				expect(Buffer.from(left!, "base64").toString("utf8")).toMatch(/^(proxy-user|me):.{0,2}$/s);
			}
		}
	});

	it("the password of a Basic header the user configured is redacted, decoded or not", () => {
		const password = "hunter2-hunter2-hunter2";
		const secrets = requestSecrets(undefined, { headers: { Authorization: `Basic ${b64(`alice:${password}`)}` } });
		expect(redactSecrets(`upstream: bad password ${password} for alice`, secrets)).toBe(
			`upstream: bad password ${REDACTED} for alice`,
		);
		expect(redactSecrets(`saw ${b64(`alice:${password}`)}`, secrets)).toBe(`saw ${REDACTED}`);
	});

	it("property: base64 of any text holding the key keeps at most 2 key bytes visible on each side", () => {
		const keyChars = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+/=.~");
		fc.assert(
			fc.property(
				fc.string({ unit: keyChars, minLength: 12, maxLength: 64 }),
				fc.string({ maxLength: 20 }),
				fc.string({ maxLength: 20 }),
				(key, before, after) => {
					const secrets = requestSecrets(undefined, { apiKey: key });
					const encoded = b64(`${before}${key}${after}`);
					const redacted = redactSecrets(`x ${encoded} y`, secrets);
					const match = /^x ([A-Za-z0-9+/=]*)\[redacted\](.*) y$/s.exec(redacted);
					expect(match).not.toBeNull();
					// Left of the mark: the groups holding `before`'s bytes (and up to 2 of the key's) only.
					const beforeBytes = Buffer.byteLength(before, "utf8");
					expect(match![1]!.length).toBe(Math.ceil(beforeBytes / 3) * 4);
					// And the same on the right, for what follows the key (at most one group holds key bytes).
					const rest = match![2]!.replace(/\[redacted\]/g, "");
					const afterBytes = Buffer.byteLength(after, "utf8");
					expect(rest.length).toBeLessThanOrEqual(Math.ceil((afterBytes + 2) / 3) * 4);
					// URL-encoded, both escape cases: nothing of it is left.
					const url = encodeURIComponent(key);
					const lower = url.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
					expect(redactSecrets(`q=${url}&l=${lower}`, secrets)).toBe(`q=${REDACTED}&l=${REDACTED}`);
				},
			),
			{ numRuns: 300 },
		);
	});
});
