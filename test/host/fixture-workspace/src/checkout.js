import { cartTotalCents } from './cart.js';

/** @param {import('./cart.js').CartLine[]} lines @param {string} [coupon] */
export function checkoutSummary(lines, coupon) {
  const percent = coupon === 'WELCOME10' ? 10 : 0;
  return `Total: ${(cartTotalCents(lines, percent) / 100).toFixed(2)} EUR`;
}
