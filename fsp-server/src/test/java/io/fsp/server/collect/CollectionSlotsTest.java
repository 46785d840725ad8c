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
        assertNull(slots.tryTake("bob"), "bob runs 1 of his 2");
    }
}
