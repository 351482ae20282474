import { createContext, use } from 'react';
import type { RxBatchApi } from '../../../shared/contract.js';

export const ApiContext = createContext<RxBatchApi | null>(null);

export function useApi(): RxBatchApi {
  const api = use(ApiContext);
  if (!api) throw new Error('useApi() is only available below <ApiContext>');
  return api;
}
