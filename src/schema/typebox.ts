/**
 * The few TypeBox 0.34 builders Settle's own schemas use (tool parameters, settings), producing the
 * very objects `@sinclair/typebox`'s `Type.*` produce — same keys in the same order, and the same
 * `Symbol.for("TypeBox.Kind")` / `Symbol.for("TypeBox.Optional")` markers, so TypeBox's `Value`,
 * its compiler and `Static<>` treat them as their own — without loading TypeBox (about 200 modules,
 * 60 ms and 12 MiB) when Settle is imported. Types come from TypeBox (type-only import).
 * Users keep writing their schemas with `@sinclair/typebox`; this module is internal.
 */
import type {
	ArrayOptions,
	IntegerOptions,
	NumberOptions,
	ObjectOptions,
	SchemaOptions,
	StringOptions,
	TArray,
	TBoolean,
	TInteger,
	TLiteral,
	TLiteralValue,
	TNumber,
	TObject,
	TOptional,
	TProperties,
	TSchema,
	TString,
	TUnion,
} from "@sinclair/typebox";

/** TypeBox's kind marker (`Kind` in `@sinclair/typebox`): a registered symbol, shared across copies. */
const Kind = Symbol.for("TypeBox.Kind");
/** TypeBox's optional-property marker (`OptionalKind`). */
const OptionalKind = Symbol.for("TypeBox.Optional");

/** TypeBox's `CreateType` with its default instance mode: options first, then the schema's own keys. */
function create<T>(schema: object, options?: object): T {
	return (options !== undefined ? { ...options, ...schema } : schema) as T;
}

function isOptional(schema: TSchema): boolean {
	return (schema as unknown as Record<symbol, unknown>)[OptionalKind] === "Optional";
}

/** TypeBox-identical builders (`Type.Object`, `Type.String`, …) for the subset Settle's schemas use. */
export const Type = {
	Object<T extends TProperties>(properties: T, options?: ObjectOptions): TObject<T> {
		const required = Object.keys(properties).filter((key) => !isOptional(properties[key]!));
		const schema =
			required.length > 0
				? { [Kind]: "Object", type: "object", required, properties }
				: { [Kind]: "Object", type: "object", properties };
		return create(schema, options);
	},
	Optional<T extends TSchema>(schema: T): TOptional<T> {
		return create({ ...schema, [OptionalKind]: "Optional" });
	},
	String(options?: StringOptions): TString {
		return create({ [Kind]: "String", type: "string" }, options);
	},
	Number(options?: NumberOptions): TNumber {
		return create({ [Kind]: "Number", type: "number" }, options);
	},
	Integer(options?: IntegerOptions): TInteger {
		return create({ [Kind]: "Integer", type: "integer" }, options);
	},
	Boolean(options?: SchemaOptions): TBoolean {
		return create({ [Kind]: "Boolean", type: "boolean" }, options);
	},
	Array<T extends TSchema>(items: T, options?: ArrayOptions): TArray<T> {
		return create({ [Kind]: "Array", type: "array", items }, options);
	},
	Literal<T extends TLiteralValue>(value: T, options?: SchemaOptions): TLiteral<T> {
		return create({ [Kind]: "Literal", const: value, type: typeof value }, options);
	},
	/** At least two members (TypeBox returns the member itself for one, `Never` for none). */
	Union<T extends [TSchema, TSchema, ...TSchema[]]>(types: [...T], options?: SchemaOptions): TUnion<T> {
		return create({ [Kind]: "Union", anyOf: types }, options);
	},
};
