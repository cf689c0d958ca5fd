/** The operator's model prices and providers' fallback prices, as the API lists them. */
export { findPriceFallback, listModelPrices, type ModelPriceRow } from '../model-prices.js';
