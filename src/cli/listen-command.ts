import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { eventTypes, type EventType } from '../events/event-envelope.ts';
import { newSigningSecret } from '../webhooks/subscription-secrets.ts';
import { signingSecretPrefix } from '../webhooks/webhook-signature.ts';
import { parseEventTypes, parsePositiveSeconds } from './argument-parsing.ts';
import { ApiError, ApiUnreachableError, UsageError } from './cli-errors.ts';
import type { CommandContext } from './command-context.ts';
import { EventForwarder, type ForwardedEvent } from './event-forwarding.ts';

/** `--forward-to` as a URL; without a scheme (`localhost:3000/hooks`, as `stripe listen` takes it) http is meant. */
export function checkedForwardUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new UsageError(`--forward-to ${raw} is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to must be an http or https URL, not ${url.protocol}.`);
  return url.toString();
}

function checkedSecret(secret: string): string {
  if (!secret.startsWith(signingSecretPrefix) || !/^[A-Za-z0-9+/]+={0,2}$/.test(secret.slice(signingSecretPrefix.length))) {
    throw new UsageError(`--secret must be ${signingSecretPrefix} followed by base64, as a subscription's signing secret is.`);
  }
  return secret;
}

export function addListenCommand(program: Command, context: CommandContext): void {
  program
    .command('listen')
    .description('Forward new events to a local URL, signed as real deliveries are, with a local secret printed at start.')
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. localhost:3000/hooks (http:// unless a scheme is given)')
    .option('--events <types>', `the event types to follow, comma-separated or repeated (default: all): ${eventTypes.join(', ')}`, parseEventTypes)
    .option('--interval <seconds>', 'how often to look for new events (default 2)', parsePositiveSeconds)
    .option('--secret <whsec_…>', 'sign with this secret instead of a new one (to keep one across restarts)')
    .addHelpText(
      'after',
      [
        '',
        'GET /events lists only event types a subscription of the workspace names. When the workspace has none',
        'for some of the chosen types, listen creates a subscription for them, pauses it at once (it delivers',
        'nothing) and deletes it when listen stops (Ctrl-C, SIGTERM, or the terminal closing). One left behind by',
        'a listen killed outright on this machine is deleted by the next listen. The key needs events:read,',
        'subscriptions:read and, in that case, subscriptions:write.',
      ].join('\n'),
    )
    .action(async (options: { forwardTo: string; events?: EventType[]; interval?: number; secret?: string }) => {
      const forwardTo = checkedForwardUrl(options.forwardTo);
      const secret = options.secret === undefined ? newSigningSecret() : checkedSecret(options.secret);
      const followed = options.events ?? [...eventTypes];
      const intervalMs = (options.interval ?? 2) * 1000;
      const forwarder = new EventForwarder(await context.client(), { forwardTo, eventTypes: followed, secret });

      const stopping = new AbortController();
      const stopListening = context.io.onInterrupt?.(() => stopping.abort()) ?? (() => {});
      try {
        const { created, removedLeftovers } = await forwarder.ensureListed();
        for (const leftover of removedLeftovers) context.err(`Deleted the subscription ${leftover.id} ("${leftover.name}") that a killed listen left behind.`);
        if (created) context.err(`Created the paused subscription ${created.id} (${created.eventTypes.join(', ')}) so these events are listed; it is deleted when listen stops.`);
        await forwarder.skipExisting();
        context.out(`Signing secret: ${secret}`);
        context.out(`Forwarding ${followed.join(', ')} to ${forwardTo}`);
        context.out(`Ready: waiting for new events (Ctrl-C to stop).`);
        const report = (forwarded: ForwardedEvent) => context.out(forwardedLine(context, forwarded));
        while (!stopping.signal.aborted) {
          await sleep(intervalMs, undefined, { signal: stopping.signal }).catch(() => {});
          if (!stopping.signal.aborted) await forwarder.forwardNew(report).catch((error: unknown) => reportPassingFailure(context, error));
        }
      } finally {
        stopListening();
        const deleted = await forwarder.removeCreatedSubscription().catch((error: Error) => {
          context.err(`Could not delete the subscription listen created: ${error.message} (paperflow subscriptions list --name "paperflow listen" finds it).`);
          throw error;
        });
        if (deleted) context.err(`Deleted the subscription ${deleted}.`);
      }
      context.err('Stopped.');
    });
}

/** A network failure or a 5xx may pass: said on stderr, and the next poll tries again. Others end listen. */
function reportPassingFailure(context: CommandContext, error: unknown): void {
  const passing = error instanceof ApiUnreachableError || (error instanceof ApiError && (error.status >= 500 || error.status === 429));
  if (!passing) throw error;
  context.err(`${error.message} Trying again.`);
}

function forwardedLine(context: CommandContext, forwarded: ForwardedEvent): string {
  const outcome =
    'status' in forwarded.outcome
      ? context.paint(forwarded.outcome.status >= 200 && forwarded.outcome.status <= 299 ? 'green' : 'red', `${forwarded.outcome.status}`)
      : context.paint('red', `failed: ${forwarded.outcome.error}`);
  return `${forwarded.occurredAt}  ${forwarded.eventType}  ${forwarded.eventId}  -> ${outcome}`;
}
