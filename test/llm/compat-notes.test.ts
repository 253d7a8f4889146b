/**
 * Which refusals get the models.json `compat` note (test/pi-races/openai-compat-refusals.test.ts
 * replays the reports through `settle -p`): only a field refused by an OpenAI-compatible API, never
 * a value out of range, a server failure, or another API's text that happens to name a field.
 */
import { describe, expect, it } from "vitest";
import { compatOptionNote, endpointPathNote, servedErrorPathNote } from "../../src/llm/compat-notes.js";
import type { Model } from "../../src/llm/types.js";
import { testModel } from "../recovery/helpers.js";

const completions: Model = { ...testModel, api: "openai-completions", provider: "gateway", id: "qwen" };
const responses: Model = { ...completions, api: "openai-responses" };

describe("compatOptionNote", () => {
	it("names nothing for a value out of range (openclaude#331), a 5xx, or another API", () => {
		const range =
			"400 The parameter `max_completion_tokens` specified in the request are not valid: integer above maximum value, expected a value <= 12288, but got 32000 instead.";
		expect(compatOptionNote(range, 400, completions)).toBeUndefined();
		const refused = "400 Unrecognized request argument supplied: reasoning_effort";
		expect(compatOptionNote(refused, 500, completions)).toBeUndefined();
		expect(compatOptionNote(refused, 400, { ...completions, api: "anthropic-messages" })).toBeUndefined();
		expect(compatOptionNote(refused, 400, completions)).toContain(`{"supportsReasoningEffort": false}`);
	});

	it("takes 'developer' for the role only when the text is about a role", () => {
		expect(compatOptionNote("400 Unknown model; ask the developer of this gateway", 400, completions)).toBeUndefined();
		expect(
			compatOptionNote("400 invalid parameter 'messages[0].role': invalid role 'developer'", 400, completions),
		).toContain(`{"supportsDeveloperRole": false}`);
	});

	it("names the refused field, not the one a 'use … instead' clause offers", () => {
		const text =
			"400 Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
		expect(compatOptionNote(text, 400, completions)).toContain(`{"maxTokensField": "max_completion_tokens"}`);
	});

	it("for openai-responses, whose client always sends the role and store, names the api setting", () => {
		const note = compatOptionNote("400 unsupported request field(s): store", 400, responses);
		expect(note).toContain(`"api": "openai-completions"`);
		expect(note).not.toContain("supportsStore");
		expect(
			compatOptionNote("400 Unrecognized request argument supplied: reasoning_effort", 400, responses),
		).toBeUndefined();
	});
});

describe("endpointPathNote", () => {
	it("names the baseUrl without the endpoint path only for a 404 from a baseUrl ending with it", () => {
		const full = { ...completions, baseUrl: "https://llm.example.com/v1/chat/completions/" };
		expect(endpointPathNote(404, full)).toContain(`set "baseUrl": "https://llm.example.com/v1" in models.json`);
		expect(endpointPathNote(404, { ...responses, baseUrl: "https://llm.example.com/v1/responses" })).toContain(
			`"baseUrl": "https://llm.example.com/v1"`,
		);
		expect(endpointPathNote(404, { ...completions, baseUrl: "https://llm.example.com/v1" })).toBeUndefined();
		expect(endpointPathNote(401, full)).toBeUndefined();
	});

	it("pi#9099: names the baseUrl with /v1 for a 404 from a baseUrl with no path whose text does not speak of a model", () => {
		const bare = { ...completions, baseUrl: "http://localhost:11434/" };
		expect(endpointPathNote(404, bare, "404 404 page not found")).toContain(
			`set "baseUrl": "http://localhost:11434/v1" for gateway in models.json`,
		);
		expect(
			endpointPathNote(404, { ...responses, baseUrl: "http://localhost:8000" }, "404 status code (no body)"),
		).toContain("has no /responses at http://localhost:8000");
		expect(endpointPathNote(404, bare, "404 The model `qwen` does not exist.")).toBeUndefined();
		expect(endpointPathNote(400, bare, "400 Bad Request")).toBeUndefined();
	});

	it("a 404 for an unknown path from a baseUrl with its own path: the URL requested and the path to check; /v1 suggested only when missing", () => {
		const api = { ...completions, baseUrl: "http://localhost:8000/api" };
		expect(endpointPathNote(404, api, "404 Not Found")).toBe(
			'The request went to http://localhost:8000/api/chat/completions and the server answered 404: it serves no /chat/completions under the path /api of the "baseUrl" of gateway. Check that path in models.json (OpenAI-compatible servers such as Ollama, vLLM and LM Studio serve it under /v1).',
		);
		const v1 = { ...responses, baseUrl: "https://gw.example.com/openai/v1/" };
		expect(endpointPathNote(404, v1, "404 status code (no body)")).toBe(
			'The request went to https://gw.example.com/openai/v1/responses and the server answered 404: it serves no /responses under the path /openai/v1 of the "baseUrl" of gateway. Check that path in models.json.',
		);
		// A missing model or another 404 (OpenRouter's "No endpoints found") is no path to check.
		expect(endpointPathNote(404, v1, "404 The model `qwen` does not exist.")).toBeUndefined();
		expect(endpointPathNote(404, v1, "404 No endpoints found matching your data policy")).toBeUndefined();
	});

	it("a baseUrl's user, password and query stay out of every note (notes reach session files, logs and exports)", () => {
		const secret = (baseUrl: string, api = completions) => ({ ...api, baseUrl });
		const notes = [
			endpointPathNote(404, secret("http://me:s3cret@localhost:11434/"), "404 page not found"),
			endpointPathNote(404, secret("http://me:s3cret@localhost:8000/api?key=k3y"), "404 Not Found"),
			endpointPathNote(404, secret("https://me:s3cret@llm.example.com/v1/chat/completions")),
			servedErrorPathNote(secret("http://localhost:1234/api?key=k3y"), "Unexpected endpoint or method."),
		];
		expect(notes[0]).toBe(
			'The server has no /chat/completions at http://localhost:11434: OpenAI-compatible servers (Ollama, vLLM, LM Studio, OpenAI) serve it under /v1. If this one does, add /v1 to the path of the "baseUrl" of gateway in models.json.',
		);
		expect(notes[1]).toContain("The request went to http://localhost:8000/api/chat/completions");
		expect(notes[2]).toBe(
			'The "baseUrl" of gateway (https://llm.example.com/v1/chat/completions) ends with /chat/completions, which pi-ai adds to it itself: take /chat/completions off its end in models.json.',
		);
		expect(notes[3]).toContain("The request went to http://localhost:1234/api/chat/completions");
		for (const note of notes) {
			expect(note).toBeDefined();
			expect(note).not.toMatch(/s3cret|k3y|me:/);
		}
	});
});
