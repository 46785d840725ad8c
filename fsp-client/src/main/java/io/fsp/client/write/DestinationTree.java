package io.fsp.client.write;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Set;

/**
 * The file system a {@link PositionalWriter} writes into, by names relative to its root that the writer has
 * checked ({@code /}-separated plain segments; {@code ""} is the root itself). One seam, two homes: by path
 * beside a client ({@link PathTree}), and relative to directory handles on a server, where a user may swap a
 * directory for a link while the transfer runs.
 */
public interface DestinationTree {
    /** The root's real path: for messages and to ask its file store, never to open what lies under it. */
    Path root();

    /** Opens the regular file {@code name} read-write, creating it if it is missing; a link there is refused. */
    FileChannel openFile(String name) throws IOException;

    /** Opens the existing file {@code name} for writing with {@code O_DIRECT}; throws where the file system cannot. */
    FileChannel openDirect(String name) throws IOException;

    /** Whether anything (a link too) has the name {@code name}. */
    boolean exists(String name) throws IOException;

    /**
     * The names in directory {@code dir} (none if it does not exist), for looking up many names at once; null where
     * this tree cannot list them, and {@link #exists} is asked name by name.
     */
    default Set<String> names(String dir) throws IOException {
        return null;
    }

    /**
     * The name {@code file} is written under until every block of it is in ({@link PositionalWriter#complete}):
     * {@link PositionalWriter#temporaryName} beside it by default, which a rerun finds and continues.
     */
    default String temporaryName(String file) {
        return PositionalWriter.temporaryName(file);
    }

    /**
     * The device ({@code st_dev}) of entry {@code name} itself (a link is not followed): which file system it is on.
     * Null where this tree cannot tell; a sync of the whole file system then never stands in for the file's own.
     */
    default Long device(String name) throws IOException {
        return null;
    }

    /** Creates directory {@code name} and its parents if missing; an entry there that is not a directory fails. */
    void createDirectories(String name) throws IOException;

    /** Renames {@code from} to {@code to} (in the same directory), replacing what {@code to} was, as rename(2). */
    void replace(String from, String to) throws IOException;

    /** Removes the file {@code name} (a link itself, never what it names) if there is one. */
    void deleteIfExists(String name) throws IOException;

    /** Writes directory {@code name}'s entries to stable storage. */
    void sync(String name) throws IOException;

    /** The parent of relative name {@code name} ({@code ""} for a name in the root). */
    static String parent(String name) {
        int slash = name.lastIndexOf('/');
        return slash < 0 ? "" : name.substring(0, slash);
    }

    /** The last segment of relative name {@code name}. */
    static String last(String name) {
        return name.substring(name.lastIndexOf('/') + 1);
    }

    /** {@code name} in directory {@code dir} ({@code ""}: the root). */
    static String child(String dir, String name) {
        return dir.isEmpty() ? name : dir + "/" + name;
    }
}
