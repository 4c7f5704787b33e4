/**
 * What a prompt's characters may be (docs/api-contract.md, "Prompts"): well-formed Unicode, no control
 * characters but tab, line feed and carriage return, some visible text, and none of Ark's legacy options in
 * any spelling. Each rule is a predicate here; generation-request.ts words the refusals.
 */

/**
 * Tab, line feed and carriage return are line structure (CR LF is how Windows tools end a line); every other
 * C0 or C1 control, DEL included, is no text to describe a video and may be read as structure by someone.
 */
const FORBIDDEN_CONTROL = /[^\P{Cc}\t\n\r]/u;

/** Invisible by definition: format characters (zero-width space, joiners, BOM, soft hyphen) and their kin. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;

/**
 * A character a reader sees: a letter, digit, punctuation or symbol that is not invisible by definition, and not
 * a blank that only looks like a character (the braille blank, Hangul fillers are Default_Ignorable already).
 * Marks are seen only on a base, so a prompt of combining marks alone has nothing to show.
 */
const VISIBLE = /(?![\p{Default_Ignorable_Code_Point}\u2800])[\p{L}\p{N}\p{P}\p{S}]/u;

/** Dashes that stand for two hyphens: word processors turn a typed `--` into one of these. */
const LONG_DASH = /[\u2013\u2014\u2015\u2E3A\u2E3B]/gu;
/** Every other dash and minus sign, each read as one hyphen (`\p{Dash}` lacks the last two). */
const DASH = /[\p{Dash}\u02D7\u2796]/gu;

const LEGACY_OPTION =
  /(^|\s)-{2,}(rs|rt|dur|cf|wm|fps|seed|resolution|ratio|duration|camerafixed|watermark|framespersecond|frames)(\s|=|$)/i;

/** No lone surrogate (an unpaired `\ud800` escape), and no U+FFFD, the mark a decoder leaves for bytes it could not read. */
export function isWellFormedText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\uFFFD');
}

/** The first control character other than tab, line feed and carriage return, as `U+0000`; undefined if none. */
export function forbiddenControl(text: string): string | undefined {
  const found = FORBIDDEN_CONTROL.exec(text)?.[0];
  return found === undefined ? undefined : `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

export function hasVisibleText(text: string): boolean {
  return VISIBLE.test(text);
}

/**
 * Whether the text carries an option Ark would still read (`--dur 12 --rs 1080p`, doc 1520757), however it is
 * spelt: compatibility forms folded (NFKC: full-width `－－ｄｕｒ`), every dash and minus sign read as a hyphen
 * (an em dash as two), and invisible characters both removed (`--\u200brs`) and read as a space (`a\u200b--rs`).
 */
export function carriesLegacyOption(text: string): boolean {
  const dashed = text.normalize('NFKC').replace(LONG_DASH, '--').replace(DASH, '-');
  return LEGACY_OPTION.test(dashed.replace(INVISIBLE, '')) || LEGACY_OPTION.test(dashed.replace(INVISIBLE, ' '));
}
