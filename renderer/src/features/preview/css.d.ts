/** Vite bundles a feature's stylesheet when its module imports it; TypeScript only needs to know the import is allowed. */
declare module '*.css';
