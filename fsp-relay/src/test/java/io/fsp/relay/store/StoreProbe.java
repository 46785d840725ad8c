package io.fsp.relay.store;

import io.fsp.token.TransferId;
import java.lang.reflect.Field;
import java.util.Map;

/** What tests read of a store that none of its callers sees: the puts it keeps waiting for space. */
public final class StoreProbe {
    private StoreProbe() {
    }

    /** Puts waiting for space, in all transfers. */
    public static int waiting(BlockStore store) {
        synchronized (store) { // the store's lock guards its transfers
            return transfers(store).values().stream().mapToInt(t -> t.waiters.size()).sum();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<TransferId, Transfer> transfers(BlockStore store) {
        try {
            Field f = BlockStore.class.getDeclaredField("transfers");
            f.setAccessible(true);
            return (Map<TransferId, Transfer>) f.get(store);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("BlockStore keeps its transfers in a field 'transfers'", e);
        }
    }
}
