import type { ColumnType, JSONColumnType } from 'kysely';
import type { JsonShapes } from '../schema.js';

/** Column types the row types of tables/*.ts share. */

export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Shape<K extends string> = K extends keyof JsonShapes ? JsonShapes[K] : object;
/** A JSON column: read as its shape (JsonShapes, schema.ts), written as JSON text. */
export type Json<K extends string> = JSONColumnType<Shape<K>, string, string>;
