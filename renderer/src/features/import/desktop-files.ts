declare global {
  interface Window {
    /**
     * Set by the Electron preload: the path on disk of a File the admin dropped on the page (or `''`). Absent in
     * browser mode, where a dropped file is read as text and uploaded.
     */
    readonly rxBatchFiles?: { pathForFile(file: File): string };
  }
}

/**
 * The paths of dropped files, when the desktop app can give them (then the core streams each file from disk, of
 * any size); empty in browser mode or for a file without a path, which the page uploads as text instead.
 */
export function droppedFilePaths(files: readonly File[]): string[] {
  const desktop = window.rxBatchFiles;
  if (!desktop) return [];
  const paths: string[] = [];
  for (const file of files) {
    const path = desktop.pathForFile(file);
    if (!path) return [];
    paths.push(path);
  }
  return paths;
}

/** The last part of a path, for showing: the page names files, not the folders they are in. */
export function fileNameOf(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}
