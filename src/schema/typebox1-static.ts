/**
 * `Static<S>` for TypeBox 1.x (the `typebox` package), read from the schema's structural markers
 * (`~kind`, `~optional`, `~readonly`, `~immutable`, `~codec`, `~unsafe`) instead of importing
 * `typebox`: Settle depends on `@sinclair/typebox` 0.34 only, and its published types must compile
 * for users who never installed 1.x. Type-only; nothing here exists at run time.
 *
 * Follows typebox 1.x's `StaticType` (encode direction, as its `Static` does) for Any, Array, BigInt,
 * Boolean, Enum, Integer, Intersect, Literal, Never, Null, Number, Object, Record, String, Symbol,
 * Tuple, Undefined, Union, Unknown, Unsafe and Void. Coarser: TemplateLiteral is `string`, Record
 * keys other than string/number patterns are `string`, tuple rest elements are not modelled; kinds
 * that need typebox's own evaluation (Ref, Cyclic, This, Function, Constructor, Dependent, deferred
 * actions) are `any`, so such a tool still compiles, untyped.
 */

/** TypeBox 1.x's record key patterns for integer and number keys (`IntegerKey`, `NumberKey`). */
type NumericKeyPattern = "^-?(?:0|[1-9][0-9]*)$" | "^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?$";

/** Anything a TypeBox 1.x builder returns: every kind carries `~kind`; `Type.Unsafe` carries `~unsafe`. */
export type TypeBox1Schema = { "~kind": string } | { "~unsafe": unknown };

type Flatten<T> = { [K in keyof T]: T[K] } & {};

type IsOptional<S> = S extends { "~optional": true } ? true : false;
type IsReadonly<S> = S extends { "~readonly": true } ? true : false;

type KeysWhere<P, Readonly extends boolean, Optional extends boolean> = {
	[K in keyof P]: [IsReadonly<P[K]>, IsOptional<P[K]>] extends [Readonly, Optional] ? K : never;
}[keyof P];

type StaticProperties<P> = Flatten<
	{ readonly [K in KeysWhere<P, true, true>]?: TypeBox1Static<P[K]> } & {
		readonly [K in KeysWhere<P, true, false>]: TypeBox1Static<P[K]>;
	} & { [K in KeysWhere<P, false, true>]?: TypeBox1Static<P[K]> } & {
		[K in KeysWhere<P, false, false>]: TypeBox1Static<P[K]>;
	}
>;

type StaticObject<P> = keyof P extends never ? object : StaticProperties<P>;

type StaticIntersect<Types, Result = unknown> = Types extends [infer Left, ...infer Right]
	? StaticIntersect<Right, Result & TypeBox1Static<Left>>
	: Result;

type StaticTupleElements<Items> = { -readonly [I in keyof Items]: TypeBox1Static<Items[I]> };

type StaticRecordKey<Pattern> = Pattern extends NumericKeyPattern ? number : string;

type Immutable<S, T extends readonly unknown[]> = S extends { "~immutable": true } ? Readonly<T> : T;

/** What each TypeBox 1.x kind stands for (an interface, so members are only computed when looked up). */
interface KindStatics<S> {
	// biome-ignore lint/suspicious/noExplicitAny: typebox's Static of Type.Any()
	Any: any;
	Array: S extends { items: infer Items } ? Immutable<S, TypeBox1Static<Items>[]> : never;
	BigInt: bigint;
	Boolean: boolean;
	Enum: S extends { enum: readonly (infer Value)[] } ? Value : never;
	Integer: number;
	Intersect: S extends { allOf: infer Types } ? StaticIntersect<Types> : never;
	Literal: S extends { const: infer Value } ? Value : never;
	Never: never;
	Null: null;
	Number: number;
	Object: S extends { properties: infer Properties } ? StaticObject<Properties> : never;
	Record: S extends { patternProperties: infer Patterns }
		? Record<StaticRecordKey<keyof Patterns>, TypeBox1Static<Patterns[keyof Patterns]>>
		: never;
	String: string;
	Symbol: symbol;
	TemplateLiteral: string;
	Tuple: S extends { items: infer Items extends readonly unknown[] } ? Immutable<S, StaticTupleElements<Items>> : never;
	Undefined: undefined;
	Union: S extends { anyOf: readonly (infer Member)[] } ? TypeBox1Static<Member> : never;
	Unknown: unknown;
	// biome-ignore lint/suspicious/noConfusingVoidType: typebox's Static of Type.Void()
	Void: void;
}

/**
 * The value type a TypeBox 1.x schema describes, as `import("typebox").Static<S>` computes it for
 * the kinds listed above.
 *
 * @example
 * ```ts
 * import { Type } from "typebox";
 *
 * const schema = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer()) });
 * type Args = TypeBox1Static<typeof schema>; // { path: string; limit?: number }
 * ```
 */
export type TypeBox1Static<S> = S extends { "~codec": unknown }
	? TypeBox1Static<Omit<S, "~codec">>
	: S extends { "~kind": infer Kind extends keyof KindStatics<S> }
		? KindStatics<S>[Kind]
		: S extends { "~unsafe": infer Value }
			? Value
			: // biome-ignore lint/suspicious/noExplicitAny: kinds typebox evaluates itself (Ref, Cyclic, …)
				any;
