import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Clock } from '../shared/clock.js';
import { sendSignal } from '../shared/send-signal.js';

/**
 * Outgoing mail (docs/decisions.md, "Notifications, receipts and the consumer portal"): over SMTP
 * when `SMTP_URL` is set, else each message is written as an `.eml` file under `DATA_DIR/mail` by
 * nodemailer's stream transport, so a developer sees every mail without a mail server.
 */
export interface OutgoingMail {
  readonly to: string;
  /** The sender's display name (the merchant's name); the address is always MAIL_FROM's. */
  readonly fromName?: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly attachments?: readonly { filename: string; content: Buffer; contentType: string }[];
}

export interface Mailer {
  /**
   * Resolves when the server accepted the mail (or the file is written); rejects otherwise, and
   * at once when `stop` aborts.
   */
  send(mail: OutgoingMail, stop?: AbortSignal): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  readonly smtpUrl: string | null;
  readonly dataDir: string;
  readonly from: string;
  readonly clock: Clock;
  /** How long one send over SMTP may take in all (default MAIL_SEND_TIMEOUT_MS). */
  readonly sendTimeoutMs?: number;
}

/**
 * One send over SMTP ends within 30 s, whatever the server does (docs/decisions.md, "Outbox and
 * dispatcher": a send ends well within its claim's lease). nodemailer's own limits are inactivity
 * limits, up to 10 minutes.
 */
export const MAIL_SEND_TIMEOUT_MS = 30_000;

export function createMailer(options: MailerOptions): Mailer {
  const fromAddress = /<([^<>]+)>\s*$/.exec(options.from)?.[1] ?? options.from.trim();
  const message = (mail: OutgoingMail) => ({
    from: mail.fromName ? { name: mail.fromName, address: fromAddress } : options.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    attachments: (mail.attachments ?? []).map((a) => ({ ...a })),
  });
  if (options.smtpUrl !== null) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    const timeoutMs = options.sendTimeoutMs ?? MAIL_SEND_TIMEOUT_MS;
    return {
      async send(mail, stop) {
        // Past the limit nodemailer closes the connection and the send fails with EABORT.
        await transport.sendMail({ ...message(mail), signal: sendSignal(timeoutMs, stop) });
      },
      close: () => transport.close(),
    };
  }
  const folder = join(options.dataDir, 'mail');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail(message(mail));
      await mkdir(folder, { recursive: true });
      const name = `${new Date(options.clock.nowMs()).toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
      await writeFile(join(folder, name), info.message as Buffer);
    },
    close: () => transport.close(),
  };
}
