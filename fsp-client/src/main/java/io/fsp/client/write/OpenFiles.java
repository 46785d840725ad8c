package io.fsp.client.write;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The destination files open now, by name: at most {@code maxOpen} while nobody uses them, the least recently used
 * closed first. A file in use (leased) is never closed under its user, so more may be open for a moment when more
 * threads write different files at once; the number of threads bounds that.
 */
final class OpenFiles {
    /** Opens a file that is not open now. */
    interface Opener {
        FileChannel open() throws IOException;
    }

    /** An open file: its channel, its {@code O_DIRECT} channel once one was needed, and how many use it now. */
    static final class Handle {
        final FileChannel channel;
        /** Guarded by the handle itself. */
        FileChannel direct;
        /** Guarded by the {@link OpenFiles}. */
        private int users;
        /** Closed by its last user: it was taken out while in use. Guarded by the {@link OpenFiles}. */
        private boolean removed;

        private Handle(FileChannel channel) {
            this.channel = channel;
        }

        private void close() throws IOException {
            try (FileChannel c = channel; FileChannel d = direct) {
                // both closed, the first failure thrown
            }
        }
    }

    private final int maxOpen;
    /** In order of use, the least recent first. Guarded by this. */
    private final LinkedHashMap<String, Handle> open = new LinkedHashMap<>(16, 0.75f, true);

    OpenFiles(int maxOpen) {
        if (maxOpen < 1) {
            throw new IllegalArgumentException("maxOpen: " + maxOpen + " (expected: >= 1)");
        }
        this.maxOpen = maxOpen;
    }

    /**
     * The open file {@code name}, opened by {@code opener} if it is not open now; give it back with
     * {@link #release}. Opening happens under this object's lock, so a file is never opened twice.
     */
    synchronized Handle lease(String name, Opener opener) throws IOException {
        Handle h = open.get(name);
        if (h == null) {
            h = new Handle(opener.open());
            open.put(name, h);
        }
        h.users++;
        return h;
    }

    /** The caller no longer uses {@code h}; files beyond the limit that nobody uses are closed. */
    void release(Handle h) throws IOException {
        List<Handle> closing;
        synchronized (this) {
            h.users--;
            if (h.removed && h.users == 0) {
                closing = List.of(h);
            } else if (open.size() <= maxOpen) {
                return;
            } else {
                closing = new ArrayList<>();
                Iterator<Map.Entry<String, Handle>> it = open.entrySet().iterator();
                while (open.size() > maxOpen && it.hasNext()) {
                    Handle eldest = it.next().getValue();
                    if (eldest.users == 0) {
                        it.remove();
                        closing.add(eldest);
                    }
                }
            }
        }
        closeAll(closing);
    }

    /** Closes file {@code name} if it is open: now, or when the last one using it gives it back. */
    void close(String name) throws IOException {
        Handle h;
        synchronized (this) {
            h = open.remove(name);
            if (h != null && h.users > 0) {
                h.removed = true;
                return;
            }
        }
        if (h != null) {
            h.close();
        }
    }

    synchronized int size() {
        return open.size();
    }

    void closeAll() throws IOException {
        List<Handle> all;
        synchronized (this) {
            all = List.copyOf(open.values());
            open.clear();
        }
        closeAll(all);
    }

    private static void closeAll(List<Handle> handles) throws IOException {
        IOException first = null;
        for (Handle h : handles) {
            try {
                h.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * A failure to open {@code file}, said plainly when it is the process's descriptor limit: that is a limit of this
     * machine (ulimit -n), not something a rerun would change.
     */
    IOException explained(FileSystemException e, String file) {
        String reason = e.getReason();
        if (reason != null && reason.contains("Too many open files")) {
            return new IOException("cannot open " + file + ": this process has as many files and connections open as"
                    + " its descriptor limit allows (ulimit -n); FSP keeps at most " + maxOpen
                    + " destination files open, so raise the limit or use fewer streams", e);
        }
        return e;
    }
}
