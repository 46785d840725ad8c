package io.fsp.cli.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The temporary directory of a loopback run (demo, benchmarks) and the processes started for it: server,
 * relays, GridFTP. Closing stops every process and deletes the directory unless it is {@link #keep() kept};
 * a shutdown hook stops the processes too when the run is interrupted (Ctrl-C), so none is left behind.
 */
public final class LoopbackWork implements AutoCloseable {
    private final Path dir;
    private final List<Process> children = new CopyOnWriteArrayList<>();
    private final Thread reaper = new Thread(this::stopAll, "loopback-reaper");
    private boolean keep;

    private LoopbackWork(Path dir) {
        this.dir = dir;
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    public static LoopbackWork create(String prefix) throws IOException {
        return new LoopbackWork(Files.createTempDirectory(prefix));
    }

    public Path dir() {
        return dir;
    }

    /** Where processes started for this run are added (LoopbackSetup adds the relays, then the server). */
    public List<Process> children() {
        return children;
    }

    /** Leaves the directory (data, logs, relay stores) in place on close. */
    public void keep() {
        keep = true;
    }

    @Override
    public void close() {
        stopAll();
        if (!keep) {
            deleteTree(dir);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException e) {
            // closing because the JVM is shutting down: the hook runs anyway
        }
    }

    private void stopAll() {
        for (Process p : children) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
        for (Process p : children) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        children.clear();
    }

    public static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory; the OS cleans it eventually
        }
    }
}
