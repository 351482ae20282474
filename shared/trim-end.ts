/**
 * `text` without the characters at its end that `drop` matches, in one pass from the end. A regular expression
 * such as `/\.+$/` is tried from every position of a long run of such characters followed by another one, which
 * takes time in the square of the run: seconds for a field value a hostile file or message can hold.
 */
export function trimEndWhere(text: string, drop: (char: string) => boolean): string {
  let end = text.length;
  while (end > 0 && drop(text[end - 1]!)) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}
