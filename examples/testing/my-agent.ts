/**
 * "Your agent": what a project adds to Settle — a tool and a policy extension. The test next to
 * it (`my-agent.test.ts`) checks them with `settle/testing`.
 */
import { Type } from "@sinclair/typebox";
import { defineTool, type ExtensionFactory } from "settle";

/** Deploys a service (here: says it did). */
export const deployTool = defineTool({
	name: "deploy",
	label: "Deploy",
	description: "Deploy a service to an environment",
	parameters: Type.Object({ service: Type.String(), env: Type.String() }),
	execute: async (_id, { service, env }) => ({
		content: [{ type: "text", text: `deployed ${service} to ${env}` }],
		details: {},
	}),
});

/** Blocks deploys to prod. */
export const prodNeedsAHuman: ExtensionFactory = (pi) => {
	pi.on("tool_call", (event) =>
		event.toolName === "deploy" && event.input.env === "prod"
			? { block: true, reason: "Blocked: prod deploys need a human." }
			: undefined,
	);
};

/** Everything the agent brings, as `createHarness` options. */
export const myAgent = { customTools: [deployTool], extensionFactories: [prodNeedsAHuman] };
