import type { CourierOption } from '../../shared/couriers.js';
import { COURIERS } from '../catalogue.js';
import type { Handler } from '../handler-context.js';

export const courierPriceList: Handler = () => ({
  status: 200,
  body: COURIERS.map((c): CourierOption => ({
    courierCode: c.courierCode,
    deliveryOption: c.deliveryOption,
    price: c.price,
    currencyCode: c.currencyCode,
  })),
});
