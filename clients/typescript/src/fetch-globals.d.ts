// The generated client names the fetch body type as browsers declare it; Node declares it in undici.
import type { BodyInit as UndiciBodyInit } from 'undici-types';

declare global {
  type BodyInit = UndiciBodyInit;
}
