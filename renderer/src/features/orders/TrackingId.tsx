import { trackingUrl } from '../../../../shared/tracking-links.js';

/** A tracking id, as a link to the courier's tracking page when the courier is known; plain text otherwise. */
export function TrackingId({ trackingId, courierCode }: { trackingId: string | null; courierCode?: string | null }) {
  if (!trackingId) return <>—</>;
  const url = trackingUrl(courierCode, trackingId);
  if (!url) return <code>{trackingId}</code>;
  return (
    <a href={url} target="_blank" rel="noreferrer noopener">
      <code>{trackingId}</code>
      <span className="visually-hidden"> (track with {courierCode}; opens in your browser)</span>
    </a>
  );
}
