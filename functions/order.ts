import { endpointHandler } from '../shared/http/http-handler.ts';
import { orderRequestSchema } from '../shared/schemas/order.ts';
import { placeOrder } from '../shared/use-cases/place-order.ts';

export const handler = endpointHandler('order', orderRequestSchema, placeOrder);
