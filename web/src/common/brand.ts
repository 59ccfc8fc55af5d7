/** The product name, as the header and the share text show it. */
export const PRODUCT_NAME = 'Taco Chat';
export const PRODUCT_EMOJI = '🌮';
