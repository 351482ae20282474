import { Suspense, use, useMemo } from 'react';
import QRCode from 'qrcode';
import { settle, type Settled } from '../../api/settle.js';

function QrImage({ image }: { image: Promise<Settled<string>> }) {
  const outcome = use(image);
  if (!outcome.ok) return <p className="hint">The QR code could not be drawn; use the link instead.</p>;
  return (
    <img
      className="qr"
      src={outcome.value}
      width={176}
      height={176}
      alt="QR code of the sign-in page with the code filled in"
    />
  );
}

/** A QR code of the complete verification link, for signing in on a phone. A data: URL, as the page's CSP allows. */
export function QrCode({ url }: { url: string }) {
  const image = useMemo(
    () => settle(QRCode.toDataURL(url, { errorCorrectionLevel: 'M', margin: 1, width: 176 })),
    [url],
  );
  return (
    <figure className="qr-figure">
      <Suspense fallback={<p className="hint">Drawing the QR code…</p>}>
        <QrImage image={image} />
      </Suspense>
      <figcaption>Scan to sign in on a phone.</figcaption>
    </figure>
  );
}
