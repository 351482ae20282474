import { use } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { Product } from '../../../../shared/products.js';
import type { Settled } from '../../api/settle.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { noMatchHint } from './no-match-hint.js';

interface Props {
  searchTerm: string;
  request: Promise<Settled<CallOutput<'products.search'>>>;
  /** Offered on each row when given (the stock and price check). */
  onPick?: (product: Product) => void;
}

export function ProductResults({ searchTerm, request, onPick }: Props) {
  const outcome = use(request);
  if (!outcome.ok) return <ErrorMessage error={outcome.error} />;
  if (!outcome.value.ok) return <ErrorMessage error={outcome.value.error} />;
  const products = outcome.value.value;
  const count = products.length === 1 ? '1 product matches' : `${products.length} products match`;
  return (
    <>
      <p role="status">
        {count} “{searchTerm}”.{products.length === 0 ? ` ${noMatchHint(searchTerm)}` : ''}
      </p>
      {products.length > 0 ? (
        <table>
          <caption className="visually-hidden">Products matching “{searchTerm}”</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">dm+d code</th>
              <th scope="col" className="number">
                Pack size
              </th>
              <th scope="col">Form</th>
              {onPick ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {products.map((product) => (
              <tr key={product.productId}>
                <th scope="row">{product.name}</th>
                {/* The code is a digit string end to end: shown exactly as the service sent it. */}
                <td>
                  <code className="dmd">{product.dmdCode}</code>
                </td>
                <td className="number">{product.packSize ?? '—'}</td>
                <td>{product.form ?? '—'}</td>
                {onPick ? (
                  <td>
                    <button type="button" className="secondary" onClick={() => onPick(product)}>
                      Check stock and price<span className="visually-hidden"> of {product.name}</span>
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
