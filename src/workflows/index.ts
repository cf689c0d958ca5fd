export { gate } from './gate.js';
export { webhookDelivery } from './webhook-delivery.js';
