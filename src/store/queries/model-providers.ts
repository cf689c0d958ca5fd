/** A model provider by id, without its key. */
export {
  findModelProvider,
  type ModelProviderKind,
  type ModelProviderRow,
} from '../model-providers.js';
