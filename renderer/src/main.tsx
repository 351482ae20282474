import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { z } from 'zod';
import { App } from './App.js';
import { getApi } from './api/get-api.js';
import { settle } from './api/settle.js';
import { applyTheme, readTheme } from './features/theme/theme.js';

// zod compiles fast parsers with `new Function` when it may; the page's CSP forbids eval, so never try.
z.config({ jitless: true });

// Before the first paint, so a dark choice never flashes light.
applyTheme(readTheme());

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App connection={settle(getApi())} />
  </StrictMode>,
);
