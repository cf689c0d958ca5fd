export { gate } from './gate.js';
