import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { settle, type Settled } from '../../api/settle.js';
import { formatMoney } from '../couriers/format-money.js';
import { FailureMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { plural } from '../format/format-time.js';
import { stockPriceFailures } from './stock-price-failures.js';

export interface PickedProduct {
  dmdCode: string;
  name?: string;
  /** Counts the picks, so picking the same product again checks again. */
  pick: number;
}

interface Answer {
  dmdCode: string;
  packs: number;
  name: string | undefined;
  stock: Settled<CallOutput<'products.stock'>>;
  price: Settled<CallOutput<'products.price'>>;
}

function serviceFailure<T>(outcome: Settled<{ ok: true; value: T } | { ok: false; error: unknown }>) {
  if (!outcome.ok) return outcome.error;
  return outcome.value.ok ? undefined : outcome.value.error;
}

/** Stock and the price of a number of packs for one product (by dm+d code), asked together. */
export function StockPriceCheck({
  environment,
  picked,
}: {
  environment: EnvironmentView;
  picked: PickedProduct | undefined;
}) {
  const api = useApi();
  const id = useId();
  const [code, setCode] = useState(picked?.dmdCode ?? '');
  const [packs, setPacks] = useState('1');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer>();
  const validCode = /^\d{6,18}$/.test(code.trim());
  const packCount = Number(packs);
  const validPacks = Number.isInteger(packCount) && packCount >= 1 && packCount <= 10_000;
  const packsOutOfRange = packs.trim() !== '' && !validPacks;
  const submitRef = useRef<HTMLButtonElement>(null);
  // The button is disabled while the service answers: the keyboard comes back to it, for the next number of packs.
  useFocusWhenLost(busy, () => submitRef.current);

  async function check(dmdCode: string, packCount: number) {
    setBusy(true);
    const ref = { environmentId: environment.id, dmdCode };
    const [stock, price] = await Promise.all([
      settle(api.call('products.stock', ref)),
      settle(api.call('products.price', { ...ref, totalPacks: packCount })),
    ]);
    setAnswer({ dmdCode, packs: packCount, name: picked?.dmdCode === dmdCode ? picked.name : undefined, stock, price });
    setBusy(false);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!validCode || !validPacks) return;
    await check(code.trim(), packCount);
  }

  // A pick's answer may be far below the row picked (a long result list): it is brought into view and given the
  // keyboard, so it is not missed and Tab goes on into the form for more packs.
  const resultRef = useRef<HTMLDivElement>(null);
  const pickAnswered = Boolean(picked && answer);
  useEffect(() => {
    if (!pickAnswered) return;
    resultRef.current?.scrollIntoView({ block: 'nearest' });
    resultRef.current?.focus({ preventScroll: true });
  }, [pickAnswered]);

  // "Check stock and price" on a search result checks at once, for one pack; the form then asks for more.
  const checkedPick = useRef(false);
  useEffect(() => {
    if (!picked || checkedPick.current) return;
    checkedPick.current = true;
    void check(picked.dmdCode, 1);
    // Once per pick: the component is keyed by it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const failures = answer
    ? stockPriceFailures(answer.dmdCode, [serviceFailure(answer.stock), serviceFailure(answer.price)])
    : [];
  return (
    <section aria-labelledby="stock-heading" className="panel">
      <h3 id="stock-heading">Stock and price</h3>
      <p className="hint">The service says whether a product is in stock, not how many packs it holds.</p>
      <form onSubmit={(event) => void submit(event)} className="search-form" aria-labelledby="stock-heading">
        <div className="field">
          <label htmlFor={`${id}-code`}>dm+d code</label>
          <input
            id={`${id}-code`}
            value={code}
            onChange={(event) => setCode(event.target.value)}
            inputMode="numeric"
            pattern="[0-9]{6,18}"
            required
            aria-describedby={`${id}-code-hint`}
          />
          <span id={`${id}-code-hint`} className="hint">
            6 to 18 digits; pick a product from the search to fill it in.
          </span>
        </div>
        <div className="field">
          <label htmlFor={`${id}-packs`}>Number of packs</label>
          <input
            id={`${id}-packs`}
            type="number"
            min={1}
            max={10_000}
            step={1}
            value={packs}
            onChange={(event) => setPacks(event.target.value)}
            required
            aria-invalid={packsOutOfRange}
            aria-describedby={`${id}-packs-hint`}
          />
          {/* Said, not only the button greyed out: a count outside the range gives no other sign. */}
          {packsOutOfRange ? (
            <span id={`${id}-packs-hint`} role="alert" className="field-error">
              A whole number of packs from 1 to 10,000.
            </span>
          ) : (
            <span id={`${id}-packs-hint`} className="hint">
              1 to 10,000.
            </span>
          )}
        </div>
        <button type="submit" ref={submitRef} disabled={busy || !validCode || !validPacks}>
          {busy ? 'Checking…' : 'Check stock and price'}
        </button>
      </form>
      {answer ? (
        <div className="stack" role="status" aria-label="Stock and price result" ref={resultRef} tabIndex={-1}>
          {answer.name ? <p>{answer.name}</p> : null}
          {failures.map((text) => (
            <FailureMessage key={text.summary} text={text} />
          ))}
          {answer.stock.ok && answer.stock.value.ok ? (
            answer.stock.value.value.inStock ? (
              <p className="good">✓ In stock</p>
            ) : (
              <p className="bad">! Out of stock</p>
            )
          ) : null}
          {answer.price.ok && answer.price.value.ok ? (
            <p>
              {plural(answer.price.value.value.totalPacks, 'pack')}:{' '}
              <strong>{formatMoney(answer.price.value.value.totalPrice, answer.price.value.value.currencyCode)}</strong>{' '}
              ({formatMoney(answer.price.value.value.unitPrice, answer.price.value.value.currencyCode)} each)
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
