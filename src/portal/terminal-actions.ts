/**
 * The terminal functions the portal uses. Activation lives with the POS interface today
 * (src/pos/terminal-security.service.ts) and is moving to src/merchants/; the portal reaches it
 * through this one file only, so the move changes one import.
 */
export { setTerminalActive } from '../pos/terminal-security.service.js';
export { listTerminals } from '../merchants/merchant.store.js';
