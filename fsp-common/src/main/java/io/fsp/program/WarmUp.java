package io.fsp.program;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one runner of start-up warm-ups: work done before the first client comes only so that it is served faster
 * (native crypto loaded, the JIT's AES-GCM, TLS and Argon2 compiled). Each task runs at once on a low-priority daemon
 * thread of one executor, named {@code warm-up: WHAT} while it runs; the program never waits for one and never
 * stops because one failed (only speed is lost: the first transfer runs cold).
 */
public final class WarmUp {
    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);
    /** Idle threads end after a few seconds: warm-ups come at start-up, not later. */
    private static final ExecutorService RUNNER = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS,
            new SynchronousQueue<>(), task -> {
                Thread t = new Thread(task, "warm-up");
                t.setDaemon(true);
                t.setPriority(Thread.MIN_PRIORITY);
                return t;
            });

    private WarmUp() {
    }

    /** Runs {@code task} in the background, beside any other warm-up; returns at once. */
    public static void inBackground(String what, Runnable task) {
        RUNNER.execute(() -> {
            Thread.currentThread().setName("warm-up: " + what);
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                log.debug("warm-up {}: {}", what, e.toString());
            } finally {
                Thread.currentThread().setName("warm-up");
            }
        });
    }
}
