package io.fsp.relay.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ReadBudgetTest {
    @Test
    void readsBeyondTheBudgetWaitInOrderUntilBytesComeBack() {
        ReadBudget budget = new ReadBudget(100);
        assertTrue(budget.acquire(60).isDone());
        CompletableFuture<Void> second = budget.acquire(60);
        CompletableFuture<Void> third = budget.acquire(10);
        assertFalse(second.isDone());
        assertFalse(third.isDone(), "no overtaking: the earlier, larger read goes first");
        budget.release(60);
        assertTrue(second.isDone());
        assertTrue(third.isDone());
        assertEquals(70, budget.used());
    }

    @Test
    void readLargerThanTheBudgetWaitsForAllOfItAndBlocksInMemoryNeedNone() {
        ReadBudget budget = new ReadBudget(100);
        assertTrue(budget.acquire(30).isDone());
        CompletableFuture<Void> huge = budget.acquire(1000);
        assertFalse(huge.isDone());
        assertTrue(budget.acquire(0).isDone());
        budget.release(30);
        assertTrue(huge.isDone());
        budget.release(1000);
        assertEquals(0, budget.used());
    }
}
