import { describe, expect, it } from 'vitest';
import { isTrackingPageUrl, trackingUrl } from './tracking-links.js';

describe('tracking links', () => {
  it('links a known courier’s tracking id to its https tracking page', () => {
    expect(trackingUrl('RMT24', 'RM123456789GB')).toBe(
      'https://www.royalmail.com/track-your-item#/tracking-results/RM123456789GB',
    );
    expect(trackingUrl('DPD', '15501234567890')).toBe('https://www.dpd.co.uk/apps/tracking/?reference=15501234567890');
  });

  it('gives no link for an unknown courier, no courier, or an id that is not letters and digits', () => {
    expect(trackingUrl('PIGEON', 'RM123456789GB')).toBeUndefined();
    expect(trackingUrl('toString', 'RM123456789GB')).toBeUndefined();
    expect(trackingUrl(null, 'RM123456789GB')).toBeUndefined();
    expect(trackingUrl('RMT24', null)).toBeUndefined();
    expect(trackingUrl('RMT24', 'RM1/../../evil')).toBeUndefined();
    expect(trackingUrl('DPD', '1&next=https://example.com')).toBeUndefined();
  });

  it('recognises exactly the pages it makes, for the desktop shell to let them open', () => {
    expect(isTrackingPageUrl(trackingUrl('RMT48', 'RN123456789GB')!)).toBe(true);
    expect(isTrackingPageUrl(trackingUrl('DPD', '15501234567890')!)).toBe(true);
    expect(isTrackingPageUrl('https://www.royalmail.com/track-your-item#/tracking-results/RN1/../x')).toBe(false);
    expect(isTrackingPageUrl('https://www.dpd.co.uk/apps/tracking/?reference=1&next=x')).toBe(false);
    expect(isTrackingPageUrl('http://www.dpd.co.uk/apps/tracking/?reference=1')).toBe(false);
    expect(isTrackingPageUrl('https://www.royalmail.com.evil.example/track-your-item#/tracking-results/RN1')).toBe(
      false,
    );
    expect(isTrackingPageUrl('https://wwwxroyalmail.com/track-your-item#/tracking-results/RN1')).toBe(false);
  });
});
