/** @typedef {{ sku: string, quantity: number, unitPriceCents: number }} CartLine */

/** @param {CartLine[]} lines @param {number} couponPercent */
export function cartTotalCents(lines, couponPercent = 0) {
  const subtotal = lines.reduce((sum, l) => sum + l.quantity * l.unitPriceCents, 0);
  return Math.round(subtotal * (1 - couponPercent / 100));
}
