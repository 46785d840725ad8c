package io.fsp.server.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class CollectionSlotsTest {
    @Test
    void boundsCollectionsPerServerAndPerAccount() {
        CollectionSlots slots = new CollectionSlots(3, 2);
        assertNull(slots.tryTake("bob"));
        assertNull(slots.tryTake("bob"));
        assertEquals("this account runs 2 collections (at most 2)", slots.tryTake("bob"));
        assertNull(slots.tryTake("carol"));
        assertEquals("this server runs 3 collections (at most 3)", slots.tryTake("dave"));
        slots.release("bob");
        assertNull(slots.tryTake("dave"), "a released slot is free again");
        assertEquals("this server runs 3 collections (at most 3)", slots.tryTake("bob"));
        slots.release("carol");
        assertEquals("this account runs 1 collection(s) and the server's last free slot is kept for an account that"
                + " runs none", slots.tryTake("bob"), "bob runs 1 of his 2, but not in the last free slot");
        assertNull(slots.tryTake("carol"), "an account that runs none takes it");
    }

    @Test
    void twoAccountsNeverHoldEverySlot() {
        CollectionSlots slots = new CollectionSlots(4, 2);
        assertNull(slots.tryTake("bob"));
        assertNull(slots.tryTake("bob"));
        assertNull(slots.tryTake("carol"));
        assertEquals("this account runs 1 collection(s) and the server's last free slot is kept for an account that"
                + " runs none", slots.tryTake("carol"));
        assertNull(slots.tryTake("dave"), "a third account still collects");
    }
}
