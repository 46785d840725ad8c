package io.fsp.client.write;

import io.fsp.block.RelativePaths;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The rules a name from the network follows before a path is made of it (block headers, manifests): relative, of
 * plain segments, not over-long, resolved one segment at a time, never through a symbolic link, always under the root.
 */
final class SafeNames {
    private SafeNames() {
    }

    /** {@code relativePath} checked ({@link #segments}), '/'-separated. */
    static String checked(String relativePath) throws UnsafePathException {
        return String.join("/", segments(relativePath));
    }

    /** See {@link PositionalWriter#resolve}. */
    static Path resolve(Path root, String relativePath) throws UnsafePathException {
        List<String> segments = segments(relativePath);
        Path p = root;
        for (String segment : segments) {
            p = p.resolve(segment);
            // A symbolic link anywhere on the way could point outside the root: refuse, do not follow.
            if (Files.isSymbolicLink(p)) {
                throw new UnsafePathException(relativePath, "goes through a symbolic link (expected: plain directories and files)");
            }
        }
        Path normal = p.normalize();
        if (!normal.startsWith(root) || normal.equals(root)) {
            throw new UnsafePathException(relativePath, "leaves the destination (expected: a relative path under it)");
        }
        return normal;
    }

    static List<String> segments(String relativePath) throws UnsafePathException {
        if (relativePath == null || relativePath.isEmpty()) {
            throw new UnsafePathException(String.valueOf(relativePath), "empty (expected: a relative path)");
        }
        int bytes = relativePath.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > PositionalWriter.MAX_PATH_BYTES) {
            throw new UnsafePathException(relativePath.substring(0, 40) + "…",
                    "length: " + bytes + " bytes (expected: <= " + PositionalWriter.MAX_PATH_BYTES + ")");
        }
        // the rule every name follows: relative, no empty, . or .. segment, no backslash or control character
        String reason = RelativePaths.reason(relativePath);
        if (reason != null) {
            throw new UnsafePathException(relativePath, reason);
        }
        List<String> out = new ArrayList<>();
        for (String segment : relativePath.split("/", -1)) {
            int segmentBytes = segment.getBytes(StandardCharsets.UTF_8).length;
            if (segmentBytes > PositionalWriter.MAX_SEGMENT_BYTES) {
                throw new UnsafePathException(relativePath,
                        "segment length: " + segmentBytes + " bytes (expected: <= " + PositionalWriter.MAX_SEGMENT_BYTES + ")");
            }
            out.add(segment);
        }
        return out;
    }

    /** See {@link PositionalWriter#temporaryName}. */
    static String temporaryName(String file) {
        String name = DestinationTree.last(file);
        String part = "." + name + ".fsp-part";
        if (part.getBytes(StandardCharsets.UTF_8).length > PositionalWriter.MAX_SEGMENT_BYTES) {
            try {
                byte[] d = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
                part = "." + HexFormat.of().formatHex(d, 0, 16) + ".fsp-part";
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java runtime has SHA-256", e);
            }
        }
        return DestinationTree.child(DestinationTree.parent(file), part);
    }
}
