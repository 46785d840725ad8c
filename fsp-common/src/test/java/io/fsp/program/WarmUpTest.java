package io.fsp.program;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Warm-ups run beside the caller on low-priority daemon threads, side by side, and a failing one harms nothing. */
@Timeout(30)
class WarmUpTest {
    @Test
    void runsOnADaemonThreadNamedForItsWork() throws Exception {
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        CompletableFuture<String> name = new CompletableFuture<>();
        WarmUp.inBackground("test work", () -> {
            name.complete(Thread.currentThread().getName());
            ran.complete(Thread.currentThread());
        });
        Thread t = ran.get(10, TimeUnit.SECONDS);
        assertTrue(t != Thread.currentThread() && t.isDaemon());
        assertEquals(Thread.MIN_PRIORITY, t.getPriority());
        assertEquals("warm-up: test work", name.get());
    }

    @Test
    void returnsAtOnceAndRunsWarmUpsSideBySide() throws Exception {
        // the first waits for the second: they would never end if the runner ran one after the other
        CountDownLatch second = new CountDownLatch(1);
        CompletableFuture<Boolean> first = new CompletableFuture<>();
        WarmUp.inBackground("first", () -> {
            try {
                first.complete(second.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                first.complete(false);
            }
        });
        WarmUp.inBackground("second", second::countDown);
        assertTrue(first.get(20, TimeUnit.SECONDS));
    }

    @Test
    void aFailingWarmUpLeavesTheRunnerServing() throws Exception {
        WarmUp.inBackground("failing", () -> {
            throw new IllegalStateException("no native library here");
        });
        CompletableFuture<Boolean> after = new CompletableFuture<>();
        WarmUp.inBackground("after", () -> after.complete(true));
        assertTrue(after.get(10, TimeUnit.SECONDS));
    }
}
