export function calculateTax({ amount, rate }) {
  return Math.round(Number(amount) * Number(rate) * 100) / 100;
}

export const makeLabel = async ({ prefix, value }) => `${prefix}-${value}`;
