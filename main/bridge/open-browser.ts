import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The desktop's "open this URL" command, when there is a desktop to open it on. */
function opener(): [string, string[]] | undefined {
  if (process.platform === 'darwin') return ['open', []];
  // rundll32 hands the URL to the default browser with no shell in between to re-parse it.
  if (process.platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler']];
  const desktop = Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  return desktop && onPath('xdg-open') ? ['xdg-open', []] : undefined;
}

/** Opens the URL in the default browser when possible; says whether it tried. Never throws. */
export function openInBrowser(url: string): boolean {
  const command = opener();
  if (!command) return false;
  try {
    const child = spawn(command[0], [...command[1], url], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
