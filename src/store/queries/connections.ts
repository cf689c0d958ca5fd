/** Connections by id, and those a member may see. */
export {
  findConnection,
  listConnectionsFor,
  type ConnectionRow,
  type ConnectionStatus,
} from '../connections.js';
