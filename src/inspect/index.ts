/**
 * `settle/inspect`: machine diagrams (Mermaid, SVG), the typed lifecycle inspection stream and
 * lifecycle traces.
 * @packageDocumentation
 */

export {
	type OperationStall,
	PROMPT_OPERATION_MACHINE_ID,
	type PromptOperationStatePath,
	promptOperationMachine,
	type QueueChange,
	type StateValuePath,
} from "../../machines/prompt-operation.machine.js";
export { RUNTIME_MACHINE_ID, type RuntimeStatePath, runtimeMachine } from "../../machines/runtime.machine.js";
export { recordExampleTrace, recordRuntimeExampleTrace } from "./example-traces.js";
export {
	type ActorLifecycleEvent,
	type BuiltInDetailsOptions,
	createLifecycleInspector,
	type DelayEvent,
	type EmittedEvent,
	type EventReceivedEvent,
	inspectActor,
	type JsonValue,
	type LifecycleDetails,
	type LifecycleInspectionEvent,
	type LifecycleInspectorOptions,
	type LifecycleObserver,
	type PromptOperationDetails,
	type RuntimeDetails,
	type StateChangeEvent,
	stateValuePath,
	type TakenTransition,
	toJsonValue,
} from "./lifecycle-inspector.js";
export {
	createInspectorHandler,
	type InspectorHandler,
	type InspectorHandlerOptions,
	type InspectorServer,
	type InspectorServerOptions,
	serveInspector,
} from "./live-server.js";
export {
	allStates,
	allTransitions,
	describeMachine,
	type MachineModel,
	type PlacedTransition,
	placeTransitions,
	type StateModel,
	type TransitionModel,
	transitionLabel,
	triggerLabel,
} from "./machine-model.js";
export { type MermaidOptions, renderMermaid, toMermaid } from "./mermaid.js";
export { type QueuedMessage, queueHistory, type TracePoint } from "./queue-history.js";
export type { InspectionSubscription } from "./subscription-set.js";
export { renderSvg, type SvgOptions, toSvg } from "./svg.js";
export {
	createTraceRecorder,
	formatLifecycleEvent,
	formatTrace,
	type LifecycleTrace,
	parseTrace,
	TRACE_FORMAT,
	TRACE_VERSION,
	type TraceRecorder,
	type TraceRecorderOptions,
	type TraceSession,
} from "./trace.js";
export { loadTrace, saveTrace } from "./trace-file.js";
export { renderTraceHtml, type TraceViewerOptions } from "./trace-viewer.js";
export {
	EXAMPLE_TRACE_FILE,
	MACHINE_VISUALIZATIONS,
	type MachineVisualization,
	RUNTIME_EXAMPLE_TRACE_FILE,
	renderVisualizations,
	VIZ_COMMAND,
	writeVisualizations,
} from "./visualizations.js";
