import { BENCH_ADMIN_TOKEN } from './server.js';

export interface BenchTerminal {
  devKey: string;
  serviceUserName: string;
  trackingUnitId: string;
  checksumSecret: string;
  outletId: number;
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

export function admin(baseUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return call(baseUrl, method, `/api/admin/v1${path}`, body, {
    authorization: `Bearer ${BENCH_ADMIN_TOKEN}`,
  });
}

/** A merchant with a brand, an outlet and an activated terminal, set up over HTTP. */
export async function setupBenchTerminal(baseUrl: string, name = 'bench-merchant'): Promise<BenchTerminal> {
  const { devKey } = (await admin(baseUrl, 'POST', '/devKeys', { name: 'bench' })) as { devKey: string };
  await admin(baseUrl, 'POST', '/merchants', {
    serviceUserName: name,
    displayName: name,
    currency: 'EUR',
    timeZone: 'Europe/Berlin',
  });
  const { brandId } = (await admin(baseUrl, 'POST', `/merchants/${name}/brands`, { name: 'Brand' })) as {
    brandId: number;
  };
  const outlet = (await call(
    baseUrl,
    'POST',
    `/api/pos/v3/merchants/${name}/outlets?brandId=${brandId}`,
    { Name: 'Outlet' },
    { devkey: devKey },
  )) as { Id: number };
  const unit = (await call(
    baseUrl,
    'GET',
    `/api/pos/v3/trackingUnits?serviceUserName=${name}&outletId=${outlet.Id}&instanceName=bench`,
    undefined,
    { devkey: devKey },
  )) as { trackingUnitId: string; checksumSecret: string };
  await admin(baseUrl, 'POST', `/trackingUnits/${unit.trackingUnitId}/activate`);
  return { devKey, serviceUserName: name, outletId: outlet.Id, ...unit };
}

/** A realistic 20-position restaurant bill. */
export function benchBasket(positions = 20): Record<string, unknown> {
  return {
    Timestamp: '2026-03-02T12:30:00+01:00',
    HasDiscounts: false,
    CurrencyISO: 'EUR',
    WaiterName: 'Anna',
    BillNumber: 'R-2026-000123',
    TableId: '12',
    TotalValue: 0,
    ContextIdentifiers: [],
    Positions: Array.from({ length: positions }, (_, i) => ({
      PositionId: i + 1,
      ProductId: String(1000 + ((i * 37) % 500)),
      ProductName: `Article ${i + 1}`,
      Unit: i % 7 === 6 ? 1 : 0,
      Amount: i % 7 === 6 ? 0.245 : (i % 3) + 1,
      RegularGrossPrice: 2.5 + (i % 5),
      CurrentGrossPrice: 2.5 + (i % 5),
      HasDiscounts: false,
      VatInPercent: 19,
      OrderTime: '2026-03-02T12:10:00+01:00',
    })),
  };
}
