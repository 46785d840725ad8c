package io.fsp.server.fs;

import java.util.ArrayList;
import java.util.List;

/**
 * An absolute path as the FTP user sees it ({@code /dir/file.bin}), normalised: no empty, {@code .} or
 * {@code ..} segments. It knows nothing about the real file system; {@link UserRoot} maps it there.
 */
public record FtpPath(List<String> segments) {
    public static final FtpPath ROOT = new FtpPath(List.of());

    public FtpPath {
        segments = List.copyOf(segments);
        for (String s : segments) {
            if (s.isEmpty() || s.equals(".") || s.equals("..") || s.indexOf('/') >= 0 || s.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("segment: '" + s + "' (expected: a plain file name)");
            }
        }
    }

    /**
     * Resolves a path argument from a command against this directory: absolute arguments start at the
     * user's root, {@code ..} goes up one level and stays at the root when already there (as {@code cd ..}
     * does at a file system's root), so no argument can name anything above the root. A NUL byte is refused,
     * and so is a name reserved for files being written ({@link UploadNames#isReserved}): no command reaches them.
     */
    public FtpPath resolve(String argument) throws PathEscapeException {
        if (argument.indexOf('\0') >= 0) {
            throw new PathEscapeException(argument);
        }
        List<String> result = new ArrayList<>(argument.startsWith("/") ? List.of() : segments);
        for (String part : argument.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (!result.isEmpty()) {
                    result.remove(result.size() - 1);
                }
            } else if (UploadNames.isReserved(part)) {
                throw new PathEscapeException.Reserved(argument);
            } else {
                result.add(part);
            }
        }
        return new FtpPath(result);
    }

    public boolean isRoot() {
        return segments.isEmpty();
    }

    /** The parent directory; the root is its own parent. */
    public FtpPath parent() {
        return isRoot() ? this : new FtpPath(segments.subList(0, segments.size() - 1));
    }

    /** The last segment, or {@code "/"} for the root. */
    public String name() {
        return isRoot() ? "/" : segments.get(segments.size() - 1);
    }

    public FtpPath child(String name) {
        List<String> s = new ArrayList<>(segments);
        s.add(name);
        return new FtpPath(s);
    }

    @Override
    public String toString() {
        return "/" + String.join("/", segments);
    }
}
