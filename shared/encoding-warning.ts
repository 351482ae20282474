/**
 * What the import says when the encoding an admin chose cannot read the file: once for the file (the core for a
 * file on disk, the renderer for a browser upload it decoded), while each unreadable value is an error on its field.
 */
export function notReadableAsChosen(encoding: string): string {
  return `The file is not valid ${encoding}, the encoding chosen: what cannot be read shows as � and is an error on its field. Choose "Detect", or the encoding the file was saved in.`;
}
