import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from './delivery-records.ts';

/** What settling one attempt changes on its delivery. */
export interface AttemptSettlement {
  status: DeliveryStatus;
  lastAttemptAt: string;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
  updatedAt: string;
}

/** A delivery of a fan-out as stored, and whether this fan-out wrote it. */
export interface FannedOutDelivery {
  current: DeliveryRecord;
  createdNow: boolean;
}

/** One attempt made by the fan-out itself, to be recorded and settled on its delivery. */
export interface OwnAttemptSettlement {
  delivery: DeliveryRecord;
  completed: AttemptRecord;
  settlement: AttemptSettlement;
}

/** What a fan-out wrote, and how it records the attempts it makes itself on the deliveries it created. */
export interface FanOut {
  deliveries: FannedOutDelivery[];
  /**
   * Records and settles attempts of deliveries this fan-out created (`createdNow`), as `settleAttempt`
   * does for each: true where this fan-out's attempt is the one recorded, false where the delivery
   * had moved on.
   */
  settleOwnAttempts(settlements: OwnAttemptSettlement[]): Promise<boolean[]>;
  /**
   * Writes a delivery this fan-out created but has not written yet (an event's first fan-out writes
   * each delivery once, by the settle of its attempt 1) as it was created, for an outcome that is not
   * that settle: a hold, or an end without an attempt, which are conditional writes on the stored
   * delivery. Nothing for a delivery already written.
   */
  writeCreation(delivery: DeliveryRecord): Promise<void>;
  /**
   * Gives the event's claim up, for a fan-out that failed and writes nothing more: its hand-off's
   * next receipt need not wait for the claim to run out. Never fails (the claim then runs out).
   */
  handBack(): Promise<void>;
}

/**
 * Another fan-out of the same event holds its claim while some of the event's deliveries are not
 * written yet, or this one's claim is too old to write under: the hand-off fails and comes back.
 */
export class FanOutInProgress extends Error {
  constructor(eventId: string, reason: string) {
    super(`The deliveries of event ${eventId} are not all written: ${reason}; the hand-off comes back.`);
    this.name = 'FanOutInProgress';
  }
}

export interface HeldDelivery {
  eventId: string;
  deliveryId: string;
  heldAttempt: number;
}

/**
 * Deliveries and their attempt records. Every write that the protocol must make once is conditional,
 * so a repeated message, a second fan-out or a consumer that died half-way writes nothing twice:
 * methods answer false (or the stored record) when their condition no longer holds.
 */
export interface DeliveryStore {
  /** False when the delivery already exists (a repeated fan-out). */
  create(record: DeliveryRecord): Promise<boolean>;
  /**
   * The deliveries of one event's fan-out: those not stored yet are written, the others answered as
   * stored, each once however many fan-outs of the event run. Throws FanOutInProgress when another
   * fan-out of the event may be writing them, or making their first attempts, at the same time.
   */
  createAll(records: DeliveryRecord[]): Promise<FanOut>;
  /** The delivery as stored, or as its fan-out holds it in flight before its first write (attempt 1 pending). */
  get(eventId: string, deliveryId: string): Promise<DeliveryRecord | undefined>;
  /** Every delivery of the event, automatic and manual, oldest first, those in their fan-out's first attempt included. */
  listOfEvent(eventId: string): Promise<DeliveryRecord[]>;
  /** Notes that the message of `attempt` is on the queue (never lowers the mark). */
  markScheduled(eventId: string, deliveryId: string, attempt: number): Promise<void>;
  /** Attempt `attempt` fell due while the subscription was paused; false when the delivery moved on. */
  hold(delivery: DeliveryRecord, attempt: number, at: string): Promise<boolean>;
  /** Clears the held mark of `attempt`; false when something else already did. */
  release(delivery: Pick<DeliveryRecord, 'eventId' | 'id'>, attempt: number): Promise<boolean>;
  /** Deliveries of the subscription held while it was paused. */
  listHeld(subscriptionId: string): Promise<HeldDelivery[]>;
  /**
   * Records `completed` (an attempt's outcome) on its delivery and settles the delivery with it, in one
   * conditional write: false when the attempt is not the delivery's next one (another receipt of the
   * same message recorded it first, or the delivery moved on), and then nothing is written.
   */
  settleAttempt(delivery: DeliveryRecord, completed: AttemptRecord, settlement: AttemptSettlement): Promise<boolean>;
  /** Ends the delivery FAILED without an attempt (its subscription is gone); false when it moved on. */
  endWithoutAttempt(delivery: DeliveryRecord, attempt: number, at: string): Promise<boolean>;
  /** The `limit` most recent recorded attempts of the delivery, oldest first, and whether older ones exist. */
  recentAttempts(delivery: Pick<DeliveryRecord, 'eventId' | 'id'>, limit: number): Promise<{ attempts: AttemptRecord[]; omitted: boolean }>;
  /**
   * Deliveries of the subscription that ended FAILED at or after `since` (their `updatedAt`), not yet
   * recovered and not past their event's retention, in the order of their events; at most `limit`,
   * and whether more exist.
   */
  failedSince(subscriptionId: string, query: { since: string; limit: number; now: Date }): Promise<{ deliveries: DeliveryRecord[]; hasMore: boolean }>;
  /** Records on a FAILED delivery the delivery that recovered it; false when one already is. */
  markRecovered(failed: Pick<DeliveryRecord, 'eventId' | 'id'>, recoveryId: string): Promise<boolean>;
}
