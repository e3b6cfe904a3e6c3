// A stored shape is spelled once, as a column table: (column, field, codec) triples. The SQL that writes it,
// the named parameters its writer binds (`@field`) and the rows its readers return (`column AS field`,
// decoded) all derive from that table, so a column is added or renamed in one place.

export type SqlValue = string | number | bigint | null;

/** How a field's value is stored in its column and read back; without `encode`/`decode` it is stored as it is. */
export interface Codec<T> {
  encode?(value: T): SqlValue;
  decode?(value: never): T;
}

export interface Column<F extends string = string, T = unknown> {
  readonly name: string;
  readonly field: F;
  readonly codec: Codec<T>;
}

export type Columns = readonly Column[];

/** The row a column table reads and writes: each field with its codec's type. */
export type RowOf<C extends Columns> = { [K in C[number] as K['field']]: K extends Column<string, infer T> ? T : never };

export const text: Codec<string> = {};
/** Text that only takes these values (the schema's CHECK, or the writer's type, keeps it so). */
export const textOf = <T extends string>(): Codec<T> => ({});
/** A number (INTEGER or REAL). */
export const num: Codec<number> = {};

/** SQL NULL for an absent value (never 0 or ''). */
export function nullable<T>(codec: Codec<T>): Codec<T | null> {
  const { encode, decode } = codec;
  return {
    ...(encode && { encode: (value: T | null) => (value === null ? null : encode(value)) }),
    ...(decode && { decode: (value: never) => (value === null ? null : decode(value)) }),
  };
}

/** 0 or 1 in SQL. */
export const bool: Codec<boolean> = { encode: (value) => (value ? 1 : 0), decode: (value: number) => value === 1 };

/** JSON text in SQL. */
export function json<T>(): Codec<T> {
  return { encode: (value) => JSON.stringify(value), decode: (value: string) => JSON.parse(value) as T };
}

export function column<F extends string, T>(name: string, field: F, codec: Codec<T>): Column<F, T> {
  return { name, field, codec };
}

/** The columns of `columns` with these fields, in the table's order. */
export function pick<C extends Columns, F extends C[number]['field']>(columns: C, ...fields: F[]): Array<Extract<C[number], Column<F>>> {
  return columns.filter((c) => (fields as string[]).includes(c.field)) as Array<Extract<C[number], Column<F>>>;
}

/** The columns of `columns` but those with these fields. */
export function omit<C extends Columns, F extends C[number]['field']>(columns: C, ...fields: F[]): Array<Exclude<C[number], Column<F>>> {
  return columns.filter((c) => !(fields as string[]).includes(c.field)) as Array<Exclude<C[number], Column<F>>>;
}

/** The same columns, read from the table known as `alias` in a query. */
export function qualified<C extends Columns>(columns: C, alias: string): C {
  return columns.map((c) => ({ ...c, name: `${alias}.${c.name}` })) as unknown as C;
}

/** `a.column AS field, ...`: the select list whose rows `decoder` reads. */
export function selectList(columns: Columns, alias?: string): string {
  const prefix = alias === undefined ? '' : `${alias}.`;
  return columns.map((c) => (c.name === c.field ? `${prefix}${c.name}` : `${prefix}${c.name} AS ${c.field}`)).join(', ');
}

/**
 * `INSERT INTO table (columns) VALUES (?, ...)`, bound by `binder(columns)`. On a conflict: `ignore` keeps the
 * stored row; an upsert's `keys` name the conflict, and every other column takes `set(column)` (default: the
 * new value).
 */
export function insertSql(table: string, columns: Columns, conflict?: 'ignore' | { keys: readonly string[]; set?: (column: string) => string }): string {
  const values = `(${columns.map((c) => c.name).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  if (conflict === undefined) return `INSERT INTO ${table} ${values}`;
  if (conflict === 'ignore') return `INSERT OR IGNORE INTO ${table} ${values}`;
  const set = conflict.set ?? ((name: string) => `excluded.${name}`);
  const updates = columns.filter((c) => !conflict.keys.includes(c.name)).map((c) => `${c.name} = ${set(c.name)}`);
  return `INSERT INTO ${table} ${values} ON CONFLICT (${conflict.keys.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
}

/**
 * The parameters of insertSql's statement for a row: its fields in the table's order, encoded. Bound by
 * position, not by name: better-sqlite3 makes a string of every parameter's name on every call, which made
 * the recorder's writes half as slow again. Compiled once into one array literal (see `compiled`).
 */
export function binder<C extends Columns>(columns: C): (row: RowOf<C>) => SqlValue[] {
  const encoders = columns.map((c) => c.codec.encode);
  const values = columns.map((c, i) => (encoders[i] === undefined ? `r.${name(c)}` : `e[${i}](r.${name(c)})`));
  const bind = compiled<[RowOf<C>, typeof encoders], SqlValue[]>(['r', 'e'], `[${values.join(', ')}]`);
  return (row) => bind(row, encoders);
}

/** Reads a row selected with `selectList` (an object with the fields as keys), decoding it in place. */
export function decoder<C extends Columns>(columns: C): (row: unknown) => RowOf<C> {
  const decoded = columns.filter((c) => c.codec.decode !== undefined);
  return (row) => {
    const fields = row as Record<string, unknown>;
    for (const c of decoded) fields[c.field] = c.codec.decode!(fields[c.field] as never);
    return fields as RowOf<C>;
  };
}

/**
 * Reads a row handed over as a list of values in `columns`' order (a SQL function's arguments). Compiled
 * once into one object literal: the export reads a row this way for every turn of a run, and an object
 * built field by field under computed names costs several times as much.
 */
export function valuesReader<C extends Columns>(columns: C): (values: readonly unknown[]) => RowOf<C> {
  const decoders = columns.map((c) => c.codec.decode);
  const fields = columns.map((c, i) => `${name(c)}: ${decoders[i] === undefined ? `v[${i}]` : `d[${i}](v[${i}])`}`);
  const build = compiled<[readonly unknown[], typeof decoders], RowOf<C>>(['v', 'd'], `{ ${fields.join(', ')} }`);
  return (values) => build(values, decoders);
}

/** A column's field, checked to be a plain name: compiled code is made of nothing else. */
function name(c: Column): string {
  if (!/^[A-Za-z_]\w*$/.test(c.field)) throw new Error(`internal error: the field ${c.field} of column ${c.name} is not a name`);
  return c.field;
}

/** A function of `parameters` returning `expression`, made of the column table's own (checked) names and positions. */
function compiled<A extends unknown[], R>(parameters: string[], expression: string): (...args: A) => R {
  return new Function(...parameters, `return ${expression};`) as (...args: A) => R;
}
