import { describe, expect, it } from 'vitest';
import {
  type ModuleImports,
  checkDependencies,
  folderLoops,
  importsOf,
  readSourceGraph,
} from '../../scripts/check-imports.js';

/** A module of a synthetic graph, from its source text. */
const mod = (module: string, text: string): ModuleImports => importsOf(module, text);

describe('dependency rules (docs/architecture.md)', () => {
  it('the service itself keeps every rule', () => {
    expect(checkDependencies(readSourceGraph('src'))).toEqual([]);
  });

  it('a clean synthetic graph passes', () => {
    const graph = [
      mod(
        'pos/baskets.routes.ts',
        "import type { FastifyPluginAsync } from 'fastify';\nimport { uploadBasket } from '../baskets/basket-upload.js';",
      ),
      mod(
        'baskets/basket-upload.ts',
        "import { evaluateBasket } from '../engine/index.js';\nimport { sql } from 'kysely';",
      ),
      mod('engine/index.ts', "import type { Instant } from '../shared/time.js';"),
    ];
    expect(checkDependencies(graph)).toEqual([]);
  });

  it('the POS and checkout interfaces import nothing of each other', () => {
    const graph = [
      mod('checkout/orders.routes.ts', "import { callerUnit } from '../pos/route-auth.js';"),
      mod('pos/tokens.routes.ts', "import { checkoutCaller } from '../checkout/checkout-auth.js';"),
    ];
    expect(checkDependencies(graph)).toEqual([
      'src/checkout/orders.routes.ts:1: the checkout interface imports the pos interface (src/pos/route-auth.ts)',
      'src/pos/tokens.routes.ts:1: the pos interface imports the checkout interface (src/checkout/checkout-auth.ts)',
      'import loop between folders: checkout, pos',
    ]);
  });

  it('no interface imports another; what two share lives in wire/ (documents/) or the domain', () => {
    const graph = [
      mod('admin/dry-run.routes.ts', "import { BasketSchema } from '../pos/basket.schemas.js';"),
      mod('portal/session.routes.ts', "import { PortalUserSchema } from '../admin/portal-users.routes.js';"),
      mod('consumer-pages/me.routes.ts', "import { opsRoutes } from '../ops/ops.routes.js';"),
    ];
    expect(checkDependencies(graph)).toEqual([
      'src/admin/dry-run.routes.ts:1: the admin interface imports the pos interface (src/pos/basket.schemas.ts)',
      'src/portal/session.routes.ts:1: the portal interface imports the admin interface (src/admin/portal-users.routes.ts)',
      'src/consumer-pages/me.routes.ts:1: the consumer-pages interface imports the ops interface (src/ops/ops.routes.ts)',
    ]);
    const shared = [
      mod('admin/dry-run.routes.ts', "import { BasketSchema } from '../wire/documents/basket.schemas.js';"),
      mod('pos/baskets.routes.ts', "import { BasketSchema } from '../wire/documents/basket.schemas.js';"),
    ];
    expect(checkDependencies(shared)).toEqual([]);
  });

  it("the domain imports nothing of the app's construction: its dependencies are handed to it", () => {
    const graph = [
      mod('merchants/terminal.ts', "import type { AppContext } from '../context.js';"),
      mod('cards/card.service.ts', "import type { Services } from '../services.js';"),
      mod('sortiment/bulk-upload.ts', "import { loadConfig } from '../config.js';"),
    ];
    expect(checkDependencies(graph)).toEqual([
      "src/merchants/terminal.ts:1: the domain imports the app's construction (src/context.ts)",
      "src/cards/card.service.ts:1: the domain imports the app's construction (src/services.ts)",
      "src/sortiment/bulk-upload.ts:1: the domain imports the app's construction (src/config.ts)",
    ]);
    // The interfaces may: they are built with the app.
    expect(
      checkDependencies([
        mod('checkout/checkout-auth.ts', "import type { AppContext } from '../context.js';"),
      ]),
    ).toEqual([]);
  });

  it('the domain may not import a wire folder', () => {
    const graph = [mod('baskets/basket-upload.ts', "import { lookupUnit } from '../pos/auth.js';")];
    expect(checkDependencies(graph)).toEqual([
      'src/baskets/basket-upload.ts:1: the domain imports the wire module src/pos/auth.ts',
    ]);
    const wireToolkit = [mod('campaigns/rule.schemas.ts', "import { Nullable } from '../wire/schemas.js';")];
    expect(checkDependencies(wireToolkit)).toHaveLength(1);
  });

  it('the domain may not import the web framework or one of its plugins', () => {
    const graph = [
      mod('cards/card.service.ts', "import type { FastifyRequest } from 'fastify';"),
      mod('loyalty/points.store.ts', "import cors from '@fastify/cors';"),
    ];
    expect(checkDependencies(graph)).toEqual([
      'src/cards/card.service.ts:1: the domain imports the web framework (fastify)',
      'src/loyalty/points.store.ts:1: the domain imports the web framework (@fastify/cors)',
    ]);
  });

  it('the engine and the posting rules import no framework, database driver or node: module', () => {
    const graph = [
      mod('engine/evaluate.ts', "import { sql } from 'kysely';"),
      mod('ledger/rules/posting-rules.ts', "import { randomUUID } from 'node:crypto';"),
      mod('engine/types.ts', "import pg from 'pg';"),
    ];
    expect(checkDependencies(graph)).toEqual([
      'src/engine/evaluate.ts:1: a pure module imports kysely',
      'src/ledger/rules/posting-rules.ts:1: a pure module imports node:crypto',
      'src/engine/types.ts:1: a pure module imports pg',
    ]);
    // The ledger's store is not pure: it may use the database.
    expect(checkDependencies([mod('ledger/ledger.store.ts', "import { sql } from 'kysely';")])).toEqual([]);
  });

  it('the engine and the posting rules read no clock', () => {
    const graph = [mod('engine/schedule.ts', 'export const today = () => Date.now();')];
    expect(checkDependencies(graph)).toEqual(['src/engine/schedule.ts:1: a pure module reads the clock']);
  });

  it('a route file imports no query builder or database driver', () => {
    const graph = [
      mod('admin/merchants.routes.ts', "import { sql } from 'kysely';"),
      mod('pos/tokens.routes.ts', "import type { Kysely } from 'kysely';\nimport pg from 'pg';"),
    ];
    expect(checkDependencies(graph)).toEqual([
      'src/admin/merchants.routes.ts:1: a route file imports kysely (queries belong in a store file)',
      'src/pos/tokens.routes.ts:1: a route file imports kysely (queries belong in a store file)',
      'src/pos/tokens.routes.ts:2: a route file imports pg (queries belong in a store file)',
    ]);
    // A store file of the same folder may.
    expect(checkDependencies([mod('merchants/merchant.store.ts', "import { sql } from 'kysely';")])).toEqual(
      [],
    );
  });

  it('no module of an interface builds a query, even on the handle it was given', () => {
    const graph = [
      mod(
        'admin/merchants.routes.ts',
        "const rows = await db\n  .selectFrom('ledger_transfers')\n  .execute();",
      ),
      mod('pos/sortiments.routes.ts', 'await db.transaction().execute(async (trx) => read(trx));'),
      mod('portal/cards.routes.ts', 'await sql`DELETE FROM cards`.execute(db);'),
    ];
    expect(checkDependencies(graph)).toEqual([
      'src/admin/merchants.routes.ts:2: an interface module builds a query (queries belong in a store file)',
      'src/pos/sortiments.routes.ts:1: an interface module builds a query (queries belong in a store file)',
      'src/portal/cards.routes.ts:1: an interface module builds a query (queries belong in a store file)',
    ]);
    // A domain module's store file may.
    expect(
      checkDependencies([mod('ledger/ledger.store.ts', "await db.selectFrom('ledger_transfers');")]),
    ).toEqual([]);
  });

  it('in the domain only store files build queries; a use case may open a transaction for them', () => {
    const graph = [
      mod(
        'cards/profile.service.ts',
        "const p = await db\n  .selectFrom('profiles')\n  .executeTakeFirst();",
      ),
      mod('cards/card.service.ts', "await trx.updateTable('cards').set({ state: 'locked' }).execute();"),
      mod('loyalty/points-verify.ts', 'const r = await sql<{ problem: string }>`SELECT 1`.execute(db);'),
      mod('notifications/push.ts', "await db.insertInto('settings').values(rows).execute();"),
      mod('orders/refund.service.ts', "await db.deleteFrom('reservations').execute();"),
      mod('baskets/basket-receipt.ts', 'const has = sql`b.bill_pdf IS NOT NULL`;'),
    ];
    expect(checkDependencies(graph)).toEqual([
      'src/cards/profile.service.ts:2: a domain module outside a store file builds a query',
      'src/cards/card.service.ts:1: a domain module outside a store file builds a query',
      'src/loyalty/points-verify.ts:1: a domain module outside a store file builds a query',
      'src/notifications/push.ts:1: a domain module outside a store file builds a query',
      'src/orders/refund.service.ts:1: a domain module outside a store file builds a query',
      'src/baskets/basket-receipt.ts:1: a domain module outside a store file builds a query',
    ]);
    expect(
      checkDependencies([
        mod('cards/card-unlock.service.ts', 'return db.transaction().execute((trx) => unlock(trx, card));'),
        mod('cards/profile.store.ts', "await db.selectFrom('profiles').execute();"),
        mod('loyalty/points-verify.store.ts', 'await sql<{ problem: string }>`SELECT 1`.execute(db);'),
        // The database layer itself (migrations, the readiness probe).
        mod('store/readiness.ts', 'await sql`select 1`.execute(db);'),
      ]),
    ).toEqual([]);
  });

  it('no import loop between folders, however long', () => {
    const graph = [
      mod('baskets/basket-rewards.ts', "import { getRuleSet } from '../campaigns/live-rules.store.js';"),
      mod('campaigns/live-rules.store.ts', "import { x } from '../sortiment/article.js';"),
      mod('sortiment/article.ts', "import { parseBasket } from '../baskets/basket.parse.js';"),
    ];
    expect(folderLoops(graph)).toEqual([['baskets', 'campaigns', 'sortiment']]);
    expect(checkDependencies(graph)).toEqual(['import loop between folders: baskets, campaigns, sortiment']);
  });

  it('no import loop between modules either, type imports included, except among the schema files of src/store/', () => {
    // The store imports the upload's document type and the upload imports the store: a planted loop.
    const planted = [
      mod('baskets/basket.store.ts', "import type { StoredResult } from './basket-upload.js';"),
      mod('baskets/basket-upload.ts', "import { isGranted } from './basket.store.js';"),
      mod('baskets/basket-model.ts', "import type { StoredBasketV1 } from './stored-basket.js';"),
    ];
    expect(checkDependencies(planted)).toEqual([
      'import loop between modules: src/baskets/basket-upload.ts, src/baskets/basket.store.ts',
    ]);
    // The document in a model file both import: no loop.
    const model = [
      mod('baskets/basket.store.ts', "import type { StoredResult } from './basket-model.js';"),
      mod(
        'baskets/basket-upload.ts',
        "import { isGranted } from './basket.store.js';\nimport type { StoredResult } from './basket-model.js';",
      ),
      mod('baskets/basket-model.ts', "import type { StoredBasketV1 } from './stored-basket.js';"),
    ];
    expect(checkDependencies(model)).toEqual([]);
    // The schema and its table files name each other by design.
    const store = [
      mod('store/schema.ts', "import type { Baskets } from './tables/baskets.js';"),
      mod('store/tables/baskets.ts', "import type { Timestamp } from '../schema.js';"),
    ];
    expect(checkDependencies(store)).toEqual([]);
  });

  it('raw SQL handed to the driver (CompiledQuery.raw) counts as a query: only in store files', () => {
    const planted = [
      mod(
        'orders/order-writer.ts',
        "import { CompiledQuery } from 'kysely';\nawait db.executeQuery(CompiledQuery.raw('SELECT place_orders($1)', [rows]));",
      ),
      mod('portal/pages.routes.ts', "const q = CompiledQuery.raw('SELECT 1');"),
    ];
    expect(checkDependencies(planted)).toEqual([
      'src/portal/pages.routes.ts:1: an interface module builds a query (queries belong in a store file)',
      'src/orders/order-writer.ts:2: a domain module outside a store file builds a query',
    ]);
    expect(
      checkDependencies([
        mod(
          'orders/order-write.store.ts',
          "await db.executeQuery(CompiledQuery.raw('SELECT place_orders($1)', [rows]));",
        ),
      ]),
    ).toEqual([]);
  });

  it('reads imports spread over several lines, re-exports and dynamic imports', () => {
    const m = importsOf(
      'pos/x.ts',
      "import {\n  a,\n  b,\n} from '../baskets/a.js';\nexport { c } from './c.js';\nconst d = await import('../cards/d.js');",
    );
    expect(m.imports).toEqual([
      { target: 'baskets/a.ts', line: 4 },
      { target: 'pos/c.ts', line: 5 },
      { target: 'cards/d.ts', line: 6 },
    ]);
  });
});
