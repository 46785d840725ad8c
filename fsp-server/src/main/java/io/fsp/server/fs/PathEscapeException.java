package io.fsp.server.fs;

import java.nio.file.AccessDeniedException;

/**
 * A path that would leave the user's root: by {@code ..}, or through a symbolic link; or one that names what
 * uploads and collections work under ({@link Reserved}).
 */
public class PathEscapeException extends AccessDeniedException {
    private static final long serialVersionUID = 1L;

    public PathEscapeException(String virtualPath) {
        super(virtualPath, null, "outside the user's root");
    }

    private PathEscapeException(String virtualPath, String reason) {
        super(virtualPath, null, reason);
    }

    /** A path with a segment {@link UploadNames#isReserved reserved} for files being written and their locks. */
    public static final class Reserved extends PathEscapeException {
        private static final long serialVersionUID = 1L;

        Reserved(String virtualPath) {
            super(virtualPath, "a name reserved for files being written and their locks");
        }
    }
}
