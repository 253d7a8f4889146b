/**
 * `settle/rpc`: a typed client of `settle --rpc` (pi 0.73.1's RPC protocol) for editor plugins and
 * other hosts, with pi's `RpcClient` method names.
 * @packageDocumentation
 */

export {
	RpcClient,
	type RpcClientOptions,
	type RpcExitStatus,
	type RpcExtensionUIHandler,
} from "./client.js";
export type {
	RpcClearedQueue,
	RpcCommand,
	RpcCommandType,
	RpcEvent,
	RpcExtensionErrorEvent,
	RpcExtensionUIAnswer,
	RpcExtensionUIDialog,
	RpcExtensionUINotice,
	RpcExtensionUIRequest,
	RpcForkResult,
	RpcModelCycle,
	RpcPromptResult,
	RpcQueueMode,
	RpcQueueResult,
	RpcResponse,
	RpcSessionState,
	RpcSessionStats,
	RpcSwitchSessionResult,
	RpcThinkingLevelResult,
} from "./types.js";
