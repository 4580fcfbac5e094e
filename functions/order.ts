import { endpointHandler } from '../shared/http/http-handler.ts';
import { placeOrder } from '../shared/use-cases/place-order.ts';

export const handler = endpointHandler('order', placeOrder);
