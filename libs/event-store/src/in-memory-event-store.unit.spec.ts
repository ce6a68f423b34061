import { InMemoryEventStore } from './in-memory-event-store.js';
import { eventStoreContract } from './testing/event-store.contract.js';

eventStoreContract('in memory', async (inline) => {
  const store = new InMemoryEventStore(inline);
  return { store, sever: async () => store.failOpenTransactions() };
});
