package io.fsp.client.journal;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a journal belongs to. A journal written for another server, another path, or the same path
 * after the file changed (size, modification time or manifest digest) is not trusted.
 *
 * @param server the server as the user named it, e.g. {@code alice@host:2121}
 * @param path the remote path of the file or directory retrieved
 * @param size total bytes of the transfer, or -1 when unknown
 * @param modifiedMillis the remote modification time, or -1 when unknown
 * @param manifestDigest a digest over the server's block manifest (hex), or empty when unknown
 */
public record TransferIdentity(String server, String path, long size, long modifiedMillis, String manifestDigest) {
    public TransferIdentity {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(path, "path");
        manifestDigest = manifestDigest == null ? "" : manifestDigest;
        if (size < -1) {
            throw new IllegalArgumentException("size: " + size + " (expected: >= -1)");
        }
    }

    /** The exact bytes stored in a journal's header and compared on reopen. */
    byte[] canonical() {
        return ("fsp-transfer\nserver=" + escape(server) + "\npath=" + escape(path) + "\nsize=" + size
                + "\nmtime=" + modifiedMillis + "\nmanifest=" + escape(manifestDigest) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n");
    }
}
