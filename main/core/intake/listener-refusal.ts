/**
 * What the MLLP listener says of a connection or frame it refused, for the intake (audit), the Intake screen and
 * serve's page: a type of its own, below the listener and the intake service, which both use it.
 */

export type PeerRefusalReason = 'allow' | 'http' | 'notMllp' | 'tls';

export type ListenerRefusal =
  | {
      kind: 'peer';
      /** Why, so the Intake screen says it in its own words (not every refused peer is one the allow-list left out). */
      reason: PeerRefusalReason;
      peer: string;
      /** A summary: this many more refusals of the peer's address for the same reason, since the one said before. */
      count?: number;
    }
  | {
      /** `busy`: the listener already had `maxConnections` open. */
      kind: 'busy' | 'tooLarge' | 'abandoned';
      peer: string;
    };
