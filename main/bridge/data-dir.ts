import { homedir } from 'node:os';
import { join } from 'node:path';

const APP_DIR = 'rx-batch';

/**
 * The per-user data directory, where Electron's `app.getPath('appData')` would put it, so browser mode and
 * the desktop app share one store: XDG config on Linux, Application Support on macOS, %APPDATA% on Windows.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_DIR);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_DIR);
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), APP_DIR);
}
