import {
  listReviews,
  REVIEW_OUTCOMES,
  REVIEW_STATUSES,
  type ReviewOutcome,
  type ReviewStatus,
  withNotes,
} from '../../shared/store/reviews.ts';
import { resolveReview } from '../../shared/use-cases/resolve-review.ts';
import { type AdminCommand, CommandError, positiveInteger, requireFlag, UsageError } from '../command.ts';

const DEFAULT_LIST_LIMIT = 50;
const MAX_NOTE_LENGTH = 1_000;

/** The review queue: list a merchant's reviews and label them; a label is feedback on the event's identities. */
export const reviewCommands: AdminCommand[] = [
  {
    words: ['reviews', 'list'],
    usage: `reviews list --merchant ID [--status ${REVIEW_STATUSES.join('|')}] [--limit ${DEFAULT_LIST_LIMIT}]`,
    options: { merchant: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const status = flags.status ?? 'open';
      if (!REVIEW_STATUSES.includes(status as ReviewStatus)) {
        throw new UsageError(`--status must be one of ${REVIEW_STATUSES.join(', ')}`);
      }
      const limit = positiveInteger(flags, 'limit') ?? DEFAULT_LIST_LIMIT;
      const { reviews, more } = await listReviews(merchantId, status as ReviewStatus, limit);
      return { merchantId, status, count: reviews.length, more, reviews: await withNotes(reviews) };
    },
  },
  {
    words: ['reviews', 'resolve'],
    usage: `reviews resolve --merchant ID --review ID --outcome ${REVIEW_OUTCOMES.join('|')} [--note TEXT]`,
    options: {
      merchant: { type: 'string' },
      review: { type: 'string' },
      outcome: { type: 'string' },
      note: { type: 'string' },
    },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const reviewId = requireFlag(flags, 'review');
      const outcome = requireFlag(flags, 'outcome');
      if (!REVIEW_OUTCOMES.includes(outcome as ReviewOutcome)) {
        throw new UsageError(`--outcome must be one of ${REVIEW_OUTCOMES.join(', ')}`);
      }
      const note = typeof flags.note === 'string' ? flags.note : undefined;
      if (note !== undefined && note.length > MAX_NOTE_LENGTH) {
        throw new UsageError(`--note must be at most ${MAX_NOTE_LENGTH} characters`);
      }
      const result = await resolveReview({
        merchantId,
        reviewId,
        outcome: outcome as ReviewOutcome,
        ...(note !== undefined ? { note } : {}),
        now: Date.now(),
      });
      switch (result.status) {
        case 'not_found':
          throw new CommandError(`no review ${reviewId} for merchant ${merchantId}`);
        case 'already_resolved': {
          const previous = result.review.resolution;
          throw new CommandError(
            `review ${reviewId} is already resolved${previous ? ` (${previous.outcome} at ${previous.resolvedAt})` : ''}`,
          );
        }
        case 'resolved':
          return {
            reviewId,
            status: 'resolved',
            outcome,
            identitiesLabelled: result.review.identities.length,
            resolution: result.review.resolution,
          };
      }
    },
  },
];
