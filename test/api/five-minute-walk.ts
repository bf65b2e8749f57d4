import { createHash } from 'node:crypto';
import { client } from '../../clients/typescript/src/generated/client.gen.js';
import {
  type BasketResponse,
  type GrantResponse,
  activateTrackingUnit,
  createBrand,
  createDevKey,
  createMerchant,
  createOutlet,
  grantBasket,
  registerTrackingUnit,
  uploadBasket,
} from '../../clients/typescript/src/generated/index.js';

export interface WalkResult {
  trackingUnitId: string;
  upload: BasketResponse;
  grant: GrantResponse;
}

/**
 * The five-minute walk of the README through a client generated from /openapi.json: the only
 * values given by hand are the credentials and the SecurityToken; every header name and the JSON
 * bodies come from the document, and the client asks for JSON answers through the package's
 * runtime configuration (clients/typescript/src/client-config.ts), which the generator wires in.
 */
export async function fiveMinuteWalk(
  baseUrl: string,
  adminToken: string,
  serviceUserName: string,
): Promise<WalkResult> {
  const credentials = new Map<string, string>();
  // The generated client, with the package's runtime configuration (it asks for JSON).
  client.setConfig({
    baseUrl,
    auth: (scheme) => (scheme.scheme === 'bearer' ? adminToken : credentials.get(scheme.name ?? '')),
  });

  // 1. The operator issues a developer key and creates a merchant with a brand.
  const devKey = await createDevKey({ client, body: { name: 'Till vendor' }, throwOnError: true });
  credentials.set('DevKey', devKey.data.devKey);
  await createMerchant({
    client,
    body: { serviceUserName, displayName: 'Café Müller', currency: 'EUR', timeZone: 'Europe/Berlin' },
    throwOnError: true,
  });
  const brand = await createBrand({
    client,
    path: { serviceUserName },
    body: { name: 'Café Müller' },
    throwOnError: true,
  });

  // 2. The till creates an outlet and registers itself as a terminal.
  const outlet = await createOutlet({
    client,
    path: { serviceUserName },
    query: { brandId: brand.data.brandId },
    body: { Name: 'Main street' },
    throwOnError: true,
  });
  const unit = await registerTrackingUnit({
    client,
    query: { serviceUserName, outletId: outlet.data.Id, instanceName: 'Till 1' },
    throwOnError: true,
  });
  credentials.set('trackingUnitId', unit.data.trackingUnitId);

  // 3. The operator activates the terminal.
  await activateTrackingUnit({
    client,
    path: { trackingUnitId: unit.data.trackingUnitId },
    throwOnError: true,
  });

  // 4. The till uploads a basket in JSON.
  const upload = await uploadBasket({
    client,
    path: { basketId: 'R-1001' },
    body: {
      Timestamp: '2026-03-02T12:30:00+01:00',
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      Positions: [
        { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.2 },
        { PositionId: 2, ProductId: '2002', Unit: 1, Amount: 0.245, CurrentGrossPrice: 19.9 },
      ],
    },
    throwOnError: true,
  });

  // 5. The bill is paid: the till grants the basket with its SecurityToken.
  const securityToken = createHash('md5')
    .update(`R-1001qPnsS14${unit.data.checksumSecret}`, 'utf8')
    .digest('hex');
  const grant = await grantBasket({
    client,
    path: { basketId: 'R-1001' },
    auth: (scheme) => (scheme.name === 'SecurityToken' ? securityToken : credentials.get(scheme.name ?? '')),
    throwOnError: true,
  });
  return { trackingUnitId: unit.data.trackingUnitId, upload: upload.data, grant: grant.data };
}
