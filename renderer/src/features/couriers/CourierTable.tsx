import { use } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { Settled } from '../../api/settle.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { formatMoney } from './format-money.js';

export function CourierTable({ request }: { request: Promise<Settled<CallOutput<'couriers.priceList'>>> }) {
  const outcome = use(request);
  if (!outcome.ok) return <ErrorMessage error={outcome.error} />;
  if (!outcome.value.ok) return <ErrorMessage error={outcome.value.error} />;
  const couriers = outcome.value.value;
  if (couriers.length === 0) return <p role="status">The service lists no couriers.</p>;
  return (
    <table>
      <caption className="visually-hidden">Courier prices</caption>
      <thead>
        <tr>
          <th scope="col">Courier code</th>
          <th scope="col">Delivery option</th>
          <th scope="col" className="number">
            Price
          </th>
        </tr>
      </thead>
      <tbody>
        {couriers.map((courier) => (
          <tr key={`${courier.courierCode}:${courier.deliveryOption}`}>
            <th scope="row">
              <code>{courier.courierCode}</code>
            </th>
            <td>{courier.deliveryOption}</td>
            <td className="number">{formatMoney(courier.price, courier.currencyCode)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
