package io.fsp.server.fs;

import java.nio.file.AccessDeniedException;

/** A path that would leave the user's root: by {@code ..}, or through a symbolic link. */
public final class PathEscapeException extends AccessDeniedException {
    private static final long serialVersionUID = 1L;

    public PathEscapeException(String virtualPath) {
        super(virtualPath, null, "outside the user's root");
    }
}
