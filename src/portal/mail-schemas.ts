import { Type } from 'typebox';

/** What became of a basket's receipt mail, its receiptMail.kind (docs/decisions.md, "What became of the receipt mail"). */
export const ReceiptMailKindSchema = Type.Union(
  [
    Type.Literal('sent'),
    Type.Literal('not_sent'),
    Type.Literal('pending'),
    Type.Literal('refused'),
    Type.Literal('given_up'),
  ],
  {
    description:
      "What became of the receipt mail: sent (delivered to the mail server); not_sent (the profile has no e-mail address, or the consumer switched mail off); pending (not tried yet, or tried again later); refused (for good, by the consumer's mail server); given_up (every try failed).",
  },
);

/** What became of a receipt's mail (docs/decisions.md, "What became of the receipt mail"); null when none was written. */
export const ReceiptMailSchema = (description: string) =>
  Type.Union(
    [
      Type.Object({
        kind: ReceiptMailKindSchema,
        status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')], {
          description:
            'pending: not sent yet, or tried again later (nextAttemptAt); delivered: done; dead: given up (a mail the server refused for good, or every try failed).',
        }),
        attempts: Type.Integer({ description: 'The tries so far.' }),
        mail: Type.Union(
          [
            Type.Literal('sent'),
            Type.Literal('failed'),
            Type.Literal('refused'),
            Type.Literal('no_address'),
            Type.Literal('switched_off'),
            Type.Null(),
          ],
          {
            description:
              "What the last try did with the mail: sent; failed for now; refused for good by the consumer's mail server; none sent (the profile has no e-mail address, or the consumer switched mail off). Null before the first try.",
          },
        ),
        lastError: Type.Union([Type.String(), Type.Null()], {
          description: "The last failed try's reason, with the mail server's answer.",
        }),
        deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description: 'When it is tried again, while pending.',
        }),
      }),
      Type.Null(),
    ],
    { description },
  );

/** The basket and order searches' receiptMail filter: every kind but not_sent. */
export const ReceiptMailFilterSchema = Type.Union(
  [Type.Literal('sent'), Type.Literal('pending'), Type.Literal('refused'), Type.Literal('given_up')],
  {
    description:
      "Only those whose receipt mail is: sent (delivered to the mail server); pending (not tried yet, or tried again later); refused (for good, by the consumer's mail server); given_up (every try failed). Those that notified nobody (an order paid otherwise, a gift card), or whose consumer gets no mail (not_sent), are found by none of these.",
  },
);
