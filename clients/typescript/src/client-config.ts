import type { CreateClientConfig } from './generated/client.gen.js';

/**
 * The generated client's initial configuration (the generator's `runtimeConfigPath`): every call
 * asks for JSON. The POS interface answers XML to a call without a body unless `Accept` names JSON
 * (docs/decisions.md, "Asking for JSON"), and OpenAPI cannot make a generated client send a header
 * by default; a call that names another `Accept` still gets what it names.
 */
export const createClientConfig: CreateClientConfig = (config) => ({
  ...config,
  headers: { Accept: 'application/json', ...(config?.headers as Record<string, string> | undefined) },
});
