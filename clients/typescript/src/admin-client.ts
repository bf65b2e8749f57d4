import { type Client, createClient, createConfig } from './generated/client/index.js';
import * as sdk from './generated/sdk.gen.js';
import type {
  CheckoutClientCredentials,
  CreateCampaignRequest,
  CreateLoyaltySchemeRequest,
  CreateMerchantRequest,
  CreateProfileRequest,
  LinkProfileTokenRequest,
  CheckoutClientPage,
  DevKeyPage,
  Otp,
  PortalUser,
  PortalUserCreate,
  TrackingUnitPage,
} from './generated/types.gen.js';
import { unwrap } from './client-errors.js';

type PageQuery = { limit?: number; cursor?: string };

/** Every row of a paged list (`limit`, `cursor` in; `data`, `nextCursor` out), page after page. */
async function everyRow<T>(
  fetchPage: (page: PageQuery) => Promise<{ data: T[]; nextCursor?: string | null }>,
): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor === undefined ? { limit: 100 } : { limit: 100, cursor });
    rows.push(...page.data);
    if (!page.nextCursor) return rows;
    cursor = page.nextCursor;
  }
}

/** The operator API (`Authorization: Bearer <ADMIN_TOKEN>`). */
export class AdminClient {
  readonly client: Client;

  constructor(options: { baseUrl: string; token: string; fetch?: typeof fetch }) {
    this.client = createClient(
      createConfig({
        baseUrl: options.baseUrl,
        auth: options.token,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    );
  }

  createDevKey(name: string) {
    return unwrap<{ id: number; devKey: string; name: string }>(
      sdk.createDevKey({ client: this.client, body: { name } }),
    );
  }

  /** A page of the DevKeys, oldest first (`cursor`: the previous page's nextCursor). */
  listDevKeys(page: PageQuery = {}) {
    return unwrap<DevKeyPage>(sdk.listDevKeys({ client: this.client, query: page }));
  }

  /** Every DevKey, oldest first, read page by page. */
  devKeys() {
    return everyRow((page) => this.listDevKeys(page));
  }

  revokeDevKey(id: number) {
    return unwrap<unknown>(sdk.revokeDevKey({ client: this.client, path: { id } }));
  }

  createMerchant(merchant: CreateMerchantRequest) {
    return unwrap<{ serviceUserName: string }>(sdk.createMerchant({ client: this.client, body: merchant }));
  }

  createBrand(serviceUserName: string, name: string) {
    return unwrap<{ brandId: number; brandName: string }>(
      sdk.createBrand({ client: this.client, path: { serviceUserName }, body: { name } }),
    );
  }

  /** A page of the merchant's terminals, oldest first. */
  listTerminals(serviceUserName: string, page: PageQuery = {}) {
    return unwrap<TrackingUnitPage>(
      sdk.listTrackingUnits({ client: this.client, path: { serviceUserName }, query: page }),
    );
  }

  /** Every terminal of the merchant, oldest first, read page by page. */
  terminals(serviceUserName: string) {
    return everyRow((page) => this.listTerminals(serviceUserName, page));
  }

  activateTerminal(trackingUnitId: string) {
    return unwrap<{ trackingUnitId: string; activated: boolean }>(
      sdk.activateTrackingUnit({ client: this.client, path: { trackingUnitId } }),
    );
  }

  deactivateTerminal(trackingUnitId: string) {
    return unwrap<unknown>(sdk.deactivateTrackingUnit({ client: this.client, path: { trackingUnitId } }));
  }

  createCampaign(serviceUserName: string, campaign: CreateCampaignRequest) {
    return unwrap<{ id: number; version: number }>(
      sdk.createCampaign({ client: this.client, path: { serviceUserName }, body: campaign }),
    );
  }

  createLoyaltyScheme(serviceUserName: string, scheme: CreateLoyaltySchemeRequest) {
    return unwrap<{ id: number; version: number }>(
      sdk.createLoyaltyScheme({ client: this.client, path: { serviceUserName }, body: scheme }),
    );
  }

  createProfile(serviceUserName: string, profile: CreateProfileRequest) {
    return unwrap<{ id: number }>(
      sdk.createProfile({ client: this.client, path: { serviceUserName }, body: profile }),
    );
  }

  linkCard(profileId: number, card: LinkProfileTokenRequest) {
    return unwrap<unknown>(
      sdk.linkProfileToken({ client: this.client, path: { id: profileId }, body: card }),
    );
  }

  readProfile(profileId: number) {
    return unwrap<unknown>(sdk.readProfile({ client: this.client, path: { id: profileId } }));
  }

  /** A one-time password the consumer gives at the till or the web shop instead of a card. */
  createOneTimePassword(profileId: number) {
    return unwrap<Otp>(sdk.createProfileOtp({ client: this.client, path: { id: profileId } }));
  }

  /** Credentials of a web shop: the access token and security secret are answered once. */
  createCheckoutClient(serviceUserName: string, name: string) {
    return unwrap<CheckoutClientCredentials>(
      sdk.createCheckoutClient({ client: this.client, path: { serviceUserName }, body: { name } }),
    );
  }

  /** A page of the merchant's checkout clients, oldest first. */
  listCheckoutClients(serviceUserName: string, page: PageQuery = {}) {
    return unwrap<CheckoutClientPage>(
      sdk.listCheckoutClients({ client: this.client, path: { serviceUserName }, query: page }),
    );
  }

  /** Every checkout client of the merchant, oldest first, read page by page. */
  checkoutClients(serviceUserName: string) {
    return everyRow((page) => this.listCheckoutClients(serviceUserName, page));
  }

  revokeCheckoutClient(serviceUserName: string, id: number) {
    return unwrap<unknown>(sdk.revokeCheckoutClient({ client: this.client, path: { serviceUserName, id } }));
  }

  /** A user of the merchant portal. */
  createPortalUser(serviceUserName: string, user: PortalUserCreate) {
    return unwrap<PortalUser>(
      sdk.createPortalUser({ client: this.client, path: { serviceUserName }, body: user }),
    );
  }
}
