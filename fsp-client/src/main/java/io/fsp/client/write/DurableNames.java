package io.fsp.client.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Which names a {@link PositionalWriter} made or changed are not durable yet, and making them so: a new file's name
 * lives in its directory, and without syncing that too a power loss could lose the whole file even though its data
 * was synced. Each directory is synced once for a whole group of files, and a directory the writer made gets its own
 * entry synced in its parent.
 */
final class DurableNames {
    /** The relative name a file's bytes are stored under now (temporary or own). */
    interface Stored {
        String of(String relativePath) throws UnsafePathException;
    }

    private final DestinationTree tree;
    private final Stored stored;
    /** Files created by the writer whose directory entries have not been synced yet. */
    private final Set<String> entryNotDurable = ConcurrentHashMap.newKeySet();
    /** Directories the writer made whose own entries (in their parents) have not been synced yet. */
    private final Set<String> directoryNotDurable = ConcurrentHashMap.newKeySet();
    /** Directories whose entries changed (a file got its name, an empty file was made) and are not synced yet. */
    private final Set<String> changedDirectories = ConcurrentHashMap.newKeySet();

    DurableNames(DestinationTree tree, Stored stored) {
        this.tree = tree;
        this.stored = stored;
    }

    void fileCreated(String relativePath) {
        entryNotDurable.add(relativePath);
    }

    void directoriesMade(Collection<String> dirs) {
        directoryNotDurable.addAll(dirs);
    }

    /** An empty file was made, or cut to nothing, under {@code storedName}. */
    void emptyFileMade(String relativePath, String storedName) {
        if (entryNotDurable.remove(relativePath)) {
            changedDirectories.add(DestinationTree.parent(storedName));
        }
    }

    /** The file got its own name {@code file}: its directory changed. */
    void renamed(String relativePath, String file) {
        entryNotDurable.remove(relativePath);
        changedDirectories.add(DestinationTree.parent(file));
    }

    /**
     * See {@link PositionalWriter#syncFileSystem}; {@code beforeSync} runs after the names to make durable are taken,
     * just before the sync.
     */
    boolean syncFileSystem(FileSystemSync fs, Collection<String> files, Runnable beforeSync) throws IOException {
        Map<String, Boolean> onIt = new HashMap<>();
        try {
            for (String f : files) {
                if (!on(fs, stored.of(f), onIt)) {
                    return false;
                }
            }
        } catch (IOException e) {
            return false; // the file's own sync says what is wrong
        }
        List<String> entries = List.copyOf(entryNotDurable);
        List<String> directories = List.copyOf(directoryNotDurable);
        List<String> changed = List.copyOf(changedDirectories);
        beforeSync.run();
        fs.sync();
        // a name lives in its directory: durable if that directory is on the file system synced
        for (String e : entries) {
            if (onQuietly(fs, DestinationTree.parent(stored.of(e)), onIt)) {
                entryNotDurable.remove(e);
            }
        }
        for (String d : directories) {
            if (onQuietly(fs, DestinationTree.parent(d), onIt)) {
                directoryNotDurable.remove(d);
            }
        }
        for (String d : changed) {
            if (onQuietly(fs, d, onIt)) {
                changedDirectories.remove(d);
            }
        }
        return true;
    }

    /** Whether entry {@code name} is on the file system of {@code fs}, looked up once per call. */
    private boolean on(FileSystemSync fs, String name, Map<String, Boolean> known) throws IOException {
        Boolean on = known.get(name);
        if (on == null) {
            on = Long.valueOf(fs.device()).equals(tree.device(name));
            known.put(name, on);
        }
        return on;
    }

    private boolean onQuietly(FileSystemSync fs, String name, Map<String, Boolean> known) {
        try {
            return on(fs, name, known);
        } catch (IOException e) {
            return false; // left for syncNames, which says what is wrong
        }
    }

    /** See {@link PositionalWriter#syncEntries(Collection, Executor)}. */
    void syncEntries(Collection<String> files, Executor pool) throws IOException {
        Set<String> dirs = new LinkedHashSet<>();
        for (String f : files) {
            if (entryNotDurable.remove(f)) {
                dirs.add(DestinationTree.parent(stored.of(f)));
            }
        }
        syncDirectories(dirs, pool);
    }

    /** See {@link PositionalWriter#syncNames(Executor)}. */
        void syncNames(Executor pool) throws IOException {
        Set<String> dirs = new LinkedHashSet<>(changedDirectories);
        changedDirectories.removeAll(dirs);
        for (String f : List.copyOf(entryNotDurable)) {
            if (entryNotDurable.remove(f)) {
                dirs.add(DestinationTree.parent(stored.of(f)));
            }
        }
        for (String d : List.copyOf(directoryNotDurable)) {
            dirs.add(DestinationTree.parent(d));
        }
        syncDirectories(dirs, pool);
    }

    /**
     * fsyncs each of {@code dirs} once (those of one round at once on {@code pool}), then in the next round the
     * parents of those this writer made, up to the root if need be.
     */
    private void syncDirectories(Set<String> dirs, Executor pool) throws IOException {
        Set<String> synced = new HashSet<>();
        Set<String> round = new LinkedHashSet<>(dirs);
        while (!round.isEmpty()) {
            round.removeAll(synced);
            List<CompletableFuture<Void>> syncs = new ArrayList<>();
            for (String d : round) {
                syncs.add(CompletableFuture.runAsync(() -> {
                    try {
                        tree.sync(d);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, pool));
            }
            try {
                CompletableFuture.allOf(syncs.toArray(CompletableFuture[]::new)).join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof UncheckedIOException u ? u.getCause() : new IOException(e.getCause());
            }
            synced.addAll(round);
            Set<String> next = new LinkedHashSet<>();
            for (String d : round) {
                changedDirectories.remove(d);
                if (!d.isEmpty() && directoryNotDurable.remove(d)) {
                    next.add(DestinationTree.parent(d));
                }
            }
            round = next;
        }
    }
}
