import { DMD_CODE_PATTERN } from '../../shared/dmd.js';
import type { FieldError } from '../../shared/errors.js';
import type { PriceCheck, Product, StockCheck } from '../../shared/products.js';
import { PRODUCTS, type CatalogueProduct } from '../catalogue.js';
import { badRequest, notFound } from '../http-io.js';
import { queryParam, type Handler, type HandlerContext } from '../handler-context.js';
import { positiveIntParam, VALIDATION_FAILED } from '../order-rules.js';

/** Product search (anonymous), stock check and price check over the seeded catalogue. */

const MAX_RESULTS = 50;

function publicProduct(p: CatalogueProduct): Product {
  return {
    productId: p.productId,
    dmdCode: p.dmdCode,
    name: p.name,
    packSize: p.packSize,
    form: p.form,
    strength: p.strength,
  };
}

/** A search term matches a name by case-insensitive substring, or a dm+d code exactly. */
export const searchProducts: Handler = (ctx) => {
  const term = queryParam(ctx, 'searchTerm');
  if (!term) throw badRequest(VALIDATION_FAILED, [{ field: 'searchTerm', message: 'searchTerm is required' }]);
  const needle = term.toLowerCase();
  const found = PRODUCTS.filter((p) => p.dmdCode === term || p.name.toLowerCase().includes(needle));
  return { status: 200, body: found.slice(0, MAX_RESULTS).map(publicProduct) };
};

/** Finds the product named by productId and/or dmdCode (both must agree when both are given). */
function productFor(ctx: HandlerContext, problems: FieldError[] = []): CatalogueProduct {
  const idText = queryParam(ctx, 'productId');
  const dmdCode = queryParam(ctx, 'dmdCode');
  if (!idText && !dmdCode) problems.push({ field: 'productId', message: 'give a productId or a dmdCode' });
  if (idText && !/^\d{1,15}$/.test(idText))
    problems.push({ field: 'productId', message: 'productId must be a whole number' });
  if (dmdCode && !DMD_CODE_PATTERN.test(dmdCode)) {
    problems.push({ field: 'dmdCode', message: 'a dm+d code is 1 to 18 digits, not starting with 0' });
  }
  if (problems.length > 0) throw badRequest(VALIDATION_FAILED, problems);
  const productId = idText ? Number(idText) : undefined;
  const product = PRODUCTS.find(
    (p) => (productId === undefined || p.productId === productId) && (dmdCode === null || p.dmdCode === dmdCode),
  );
  if (!product)
    throw notFound(
      `no product matches ${[idText && `productId ${idText}`, dmdCode && `dmdCode ${dmdCode}`].filter(Boolean).join(' and ')}`,
    );
  return product;
}

export const stockCheck: Handler = (ctx) => {
  const product = productFor(ctx);
  return { status: 200, body: { inStock: product.stock > 0 } satisfies StockCheck };
};

export const priceCheck: Handler = (ctx) => {
  const totalPacksText = queryParam(ctx, 'totalPacks');
  const problems: FieldError[] = [];
  let totalPacks = 0;
  try {
    totalPacks = positiveIntParam('totalPacks', totalPacksText);
  } catch {
    problems.push({ field: 'totalPacks', message: 'totalPacks must be a positive whole number' });
  }
  const product = productFor(ctx, problems);
  const body: PriceCheck = {
    productId: product.productId,
    dmdCode: product.dmdCode,
    totalPacks,
    unitPrice: product.unitPrice,
    totalPrice: Math.round(product.unitPrice * totalPacks * 100) / 100,
    currencyCode: 'GBP',
  };
  return { status: 200, body };
};
