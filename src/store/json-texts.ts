/**
 * Between the JSON texts of a batch's rows when they go to the database as one text: U+001E, which
 * JSON text cannot hold (JSON.stringify writes every control character escaped). The statement
 * splits the text with `string_to_array(text, E'\x1e')`: nothing to escape on the way, and each
 * text is parsed once, where a JSON document of the rows would be lexed again for each nested one.
 */
export const JSON_SEPARATOR = '\u001e';

/** The JSON texts joined into one text for `string_to_array(text, E'\x1e')`. */
export function joinJsonTexts(texts: readonly string[]): string {
  return texts.join(JSON_SEPARATOR);
}
